// The collected tool definitions of bench/data (collect.ts) as searchable tools, for the quality measure and the bench.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchableTool } from '../../src/host/search/ranker.js';
import type { Tool } from '../../src/spec/types.js';

/** A server's short name: the package without its scope and the usual `mcp`/`server` words. */
export function shortName(pkg: string): string {
  return (
    pkg
      .replace(/^@[^/]+\//, '')
      .replace(/(^|-)(mcp|server)(?=-|$)/g, '')
      .replace(/^-+|-+$/g, '')
      .replace(/-+/g, '-') || pkg.replace(/^@|\/.*/g, '')
  );
}

/**
 * Every collected tool, named `<server><separator><tool>` with the server's short name (a second server of the same
 * short name gets a `2`); also how many servers there were.
 */
export function collectedTools(dir: string, separator = '/'): { tools: SearchableTool[]; servers: number } {
  const collected = JSON.parse(readFileSync(join(dir, 'npm-mcp-tools.json'), 'utf8')) as {
    servers: { package: string; tools: Tool[] }[];
  };
  const tools: SearchableTool[] = [];
  const seen = new Set<string>();
  for (const s of collected.servers) {
    let server = shortName(s.package);
    while (seen.has(server)) server = `${server}2`;
    seen.add(server);
    for (const tool of s.tools) tools.push({ name: `${server}${separator}${tool.name}`, server, tool });
  }
  return { tools, servers: collected.servers.length };
}
