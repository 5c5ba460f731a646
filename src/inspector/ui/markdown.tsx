// A small Markdown renderer that builds elements (never HTML strings): headings, paragraphs, lists, code blocks,
// block quotes, inline code, emphasis and links (http and https only). Enough for tool results and instructions.
import type { ComponentChildren } from 'preact';

export function Markdown(props: { text: string }) {
  return <div class="markdown">{blocks(props.text)}</div>;
}

function blocks(text: string): ComponentChildren[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: ComponentChildren[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    const fence = /^```/.exec(line);
    if (fence) {
      const body: string[] = [];
      for (i++; i < lines.length && !/^```/.test(lines[i] as string); i++) body.push(lines[i] as string);
      i++;
      out.push(<pre key={out.length}>{body.join('\n')}</pre>);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min((heading[1] as string).length + 2, 6);
      const Tag = `h${level}` as 'h3';
      out.push(<Tag key={out.length}>{inline(heading[2] as string)}</Tag>);
      i++;
      continue;
    }
    if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: ComponentChildren[] = [];
      for (; i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i] as string); i++)
        items.push(
          <li key={items.length}>{inline((lines[i] as string).replace(/^\s*([-*+]|\d+[.)])\s+/, ''))}</li>,
        );
      out.push(ordered ? <ol key={out.length}>{items}</ol> : <ul key={out.length}>{items}</ul>);
      continue;
    }
    if (/^>\s?/.test(line)) {
      const quoted: string[] = [];
      for (; i < lines.length && /^>\s?/.test(lines[i] as string); i++)
        quoted.push((lines[i] as string).replace(/^>\s?/, ''));
      out.push(<blockquote key={out.length}>{blocks(quoted.join('\n'))}</blockquote>);
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    const para: string[] = [];
    for (
      ;
      i < lines.length &&
      (lines[i] as string).trim() !== '' &&
      !/^(```|#{1,6}\s|>|\s*([-*+]|\d+[.)])\s)/.test(lines[i] as string);
      i++
    )
      para.push(lines[i] as string);
    if (para.length === 0) para.push(lines[i++] as string);
    out.push(<p key={out.length}>{inline(para.join(' '))}</p>);
  }
  return out;
}

const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*]+\*|_[^_]+_)|(\[[^\]]+\]\([^)\s]+\))/g;

function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    const token = m[0];
    if (m[1]) out.push(<code key={at}>{token.slice(1, -1)}</code>);
    else if (m[2]) out.push(<strong key={at}>{inline(token.slice(2, -2))}</strong>);
    else if (m[3]) out.push(<em key={at}>{inline(token.slice(1, -1))}</em>);
    else {
      const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(token) as RegExpExecArray;
      const href = link[2] as string;
      out.push(
        /^https?:\/\//i.test(href) ? (
          <a key={at} href={href} target="_blank" rel="noopener noreferrer">
            {link[1]}
          </a>
        ) : (
          token
        ),
      );
    }
    last = at + token.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
