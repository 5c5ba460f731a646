// An MCP App beside a tool's result: its document in a sandboxed frame (scripts only, an opaque origin, the CSP its
// resource declares), spoken to through the bridge; its tool calls go to the inspector server, which asks the person.
import { useEffect, useRef, useState } from 'preact/hooks';
import { AppFrame } from '../../client/apps/bridge.js';
import { JsonRpcError } from '../../jsonrpc/errors.js';
import type { CallToolResult, ReadResourceResult, Tool } from '../../spec/types.js';
import type { OpenedApp } from '../apps.js';
import { ActionError, act } from './api.js';

const MIN_HEIGHT = 60;
const MAX_HEIGHT = 1600;
/** Apps opened ahead at most (the oldest dropped; the server forgets the ids it no longer keeps anyway). */
const MAX_AHEAD = 4;

/** Apps opened before their tool is called, by {@link aheadKey}: each is taken by the first frame that needs it. */
const ahead = new Map<string, Promise<OpenedApp>>();

function aheadKey(uri: string, tool: string, listKey: string): string {
  return JSON.stringify([listKey, tool, uri]);
}

/**
 * Opens tool `tool`'s App `uri` (its document read, its policy made) as soon as the tool is picked, so a call's frame
 * starts without that round trip; `listKey` changes with the connection and the tool list, which make it stale.
 */
export function openAhead(uri: string, tool: string, listKey: string): void {
  warmAppFrames();
  const key = aheadKey(uri, tool, listKey);
  if (ahead.has(key)) return;
  const opening = act<OpenedApp>('app-open', { uri, tool });
  // Its failure is shown by the frame that takes it; none may take it.
  opening.catch(() => undefined);
  ahead.set(key, opening);
  for (const old of ahead.keys()) {
    if (ahead.size <= MAX_AHEAD) break;
    ahead.delete(old);
  }
}

/**
 * Keeps one empty sandboxed frame in the page once an App may be shown: Chromium runs sandboxed frames in a process
 * of their own, which an App's frame then finds started (measured: about 0.9 s less on a loaded machine).
 */
export function warmAppFrames(): void {
  if (document.querySelector('iframe[data-app-warm]')) return;
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('data-app-warm', '');
  frame.setAttribute('aria-hidden', 'true');
  frame.tabIndex = -1;
  frame.hidden = true;
  frame.srcdoc = '<!doctype html><title>empty</title>';
  document.body.append(frame);
}

function openedAhead(uri: string, tool: string, listKey: string): Promise<OpenedApp> | undefined {
  const key = aheadKey(uri, tool, listKey);
  const opening = ahead.get(key);
  ahead.delete(key);
  return opening;
}

/** An action's failure as the JSON-RPC error the App gets. */
function forApp(e: unknown): Error {
  if (e instanceof ActionError && typeof e.code === 'number')
    return new JsonRpcError(e.code, e.message, e.data);
  return e instanceof Error ? e : new Error(String(e));
}

export function AppView(props: {
  uri: string;
  tool: Tool;
  /** The tool list's key: an App opened ahead under another one is not used. */
  listKey: string;
  args: Record<string, unknown> | undefined;
  result: CallToolResult | undefined;
}) {
  const [opened, setOpened] = useState<OpenedApp | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [height, setHeight] = useState(240);
  const [link, setLink] = useState<{ url: string; settle: (opened: boolean) => void } | undefined>(undefined);
  const frameRef = useRef<HTMLIFrameElement>(null);
  const bridge = useRef<AppFrame | undefined>(undefined);

  useEffect(() => {
    let live = true;
    const opening =
      openedAhead(props.uri, props.tool.name, props.listKey) ??
      act<OpenedApp>('app-open', { uri: props.uri, tool: props.tool.name });
    opening.then(
      (app) => live && setOpened(app),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [props.uri]);

  useEffect(() => {
    if (!opened) return;
    const app = opened.id;
    const frame = new AppFrame({
      frame: () => frameRef.current?.contentWindow,
      listener: window,
      hostInfo: { name: 'mcpkit-inspector', version: '0.1.0' },
      hostContext: {
        toolInfo: { tool: props.tool },
        theme: 'light',
        displayMode: 'inline',
        availableDisplayModes: ['inline'],
        platform: 'web',
        locale: navigator.language,
        containerDimensions: { maxHeight: MAX_HEIGHT },
      },
      sandbox: opened.sandbox,
      handlers: {
        callTool: (name, args) =>
          act<CallToolResult>('app-call', { app, name, arguments: args }).catch((e) => {
            throw forApp(e);
          }),
        readResource: (uri) =>
          act<ReadResourceResult>('app-read', { app, uri }).catch((e) => {
            throw forApp(e);
          }),
        openLink: async (url) => {
          const checked = await act<{ url: string }>('app-link', { app, url }).catch((e) => {
            throw forApp(e);
          });
          // Only the person opens a link: the App's request waits for their click.
          return new Promise<boolean>((settle) => setLink({ url: checked.url, settle }));
        },
        onsize: (size) => {
          if (size.height !== undefined)
            setHeight(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(size.height))));
        },
      },
    });
    bridge.current = frame;
    return () => {
      frame.close();
      bridge.current = undefined;
    };
  }, [opened]);

  useEffect(() => {
    if (props.args) bridge.current?.toolInput(props.args);
  }, [opened, props.args]);
  useEffect(() => {
    if (props.result) bridge.current?.toolResult(props.result);
  }, [opened, props.result]);

  if (error)
    return (
      <p class="error-text" data-app-error>
        App {props.uri}: {error}
      </p>
    );
  if (!opened) return <p class="muted">Opening the App {props.uri}…</p>;
  return (
    <div class={opened.prefersBorder === false ? 'app' : 'app bordered'} data-app={opened.uri}>
      <p class="muted app-head">
        App <code>{opened.uri}</code> · sandboxed, its own origin
      </p>
      {opened.refused.length > 0 ? (
        <ul class="error-text" data-app-refused>
          {opened.refused.map((r) => (
            <li key={`${r.list}:${r.source}`}>
              CSP {r.list}: {r.source} not allowed ({r.reason})
            </li>
          ))}
        </ul>
      ) : null}
      <iframe
        ref={frameRef}
        title={`App ${opened.uri}`}
        src={opened.src}
        sandbox="allow-scripts"
        allow={opened.allow}
        referrerpolicy="no-referrer"
        data-app-frame={opened.uri}
        style={{ height: `${height}px` }}
      />
      {link ? (
        <div class="row app-link" data-app-link>
          <span>
            The App asks to open <code>{link.url}</code>
          </span>
          <button
            type="button"
            class="primary"
            data-app-link-open
            onClick={() => {
              window.open(link.url, '_blank', 'noopener,noreferrer');
              link.settle(true);
              setLink(undefined);
            }}
          >
            Open
          </button>
          <button
            type="button"
            data-app-link-cancel
            onClick={() => {
              link.settle(false);
              setLink(undefined);
            }}
          >
            Cancel
          </button>
        </div>
      ) : null}
    </div>
  );
}
