// Results rendered by content type: text (plain or Markdown), images, audio, resource links, embedded resources,
// and a tool result's structured content beside its output schema, with isError shown as such.
import { useState } from 'preact/hooks';
import type { CallToolResult, ContentBlock, ResourceContents } from '../../spec/types.js';
import { act } from './api.js';
import { Markdown } from './markdown.js';

const MEDIA = /^(image|audio)\/[\w.+-]+$/;

/** A JSON value, pretty-printed. */
export function Json(props: { value: unknown; class?: string }) {
  return <pre class={`json ${props.class ?? ''}`}>{JSON.stringify(props.value, null, 2)}</pre>;
}

/** A tool call's result. */
export function ToolResult(props: { result: CallToolResult; outputSchema?: unknown }) {
  const { result } = props;
  const [markdown, setMarkdown] = useState(false);
  return (
    <div class={result.isError ? 'result is-error' : 'result'} data-result>
      <div class="result-head">
        {result.isError ? (
          <strong class="badge error">isError: the tool reported an error</strong>
        ) : (
          <strong>Result</strong>
        )}
        <label class="raw-switch">
          <input type="checkbox" checked={markdown} onChange={(e) => setMarkdown(e.currentTarget.checked)} />
          text as Markdown
        </label>
      </div>
      <Blocks blocks={result.content} markdown={markdown} />
      {result.structuredContent !== undefined || props.outputSchema !== undefined ? (
        <div class="columns structured">
          <div>
            <h4>Structured content</h4>
            <Json value={result.structuredContent ?? null} />
          </div>
          <div>
            <h4>Output schema</h4>
            {props.outputSchema === undefined ? (
              <p class="muted">none declared</p>
            ) : (
              <Json value={props.outputSchema} />
            )}
          </div>
        </div>
      ) : null}
    </div>
  );
}

/** A list of content blocks. */
export function Blocks(props: { blocks: readonly ContentBlock[]; markdown?: boolean }) {
  if (props.blocks.length === 0) return <p class="muted">(no content)</p>;
  return (
    <div class="blocks">
      {props.blocks.map((block, i) => (
        <Block key={String(i)} block={block} markdown={props.markdown === true} />
      ))}
    </div>
  );
}

function Block(props: { block: ContentBlock; markdown: boolean }) {
  const block = props.block;
  switch (block.type) {
    case 'text':
      return (
        <div class="block text" data-block="text">
          {props.markdown ? <Markdown text={block.text} /> : <pre>{block.text}</pre>}
        </div>
      );
    case 'image':
    case 'audio':
      return (
        <div class={`block ${block.type}`} data-block={block.type}>
          <Media kind={block.type} mimeType={block.mimeType} data={block.data} />
          <span class="muted">
            {block.mimeType}, {approxBytes(block.data)}
          </span>
        </div>
      );
    case 'resource_link':
      return (
        <ResourceLink
          uri={block.uri}
          name={block.name}
          mimeType={block.mimeType}
          description={block.description}
        />
      );
    case 'resource':
      return (
        <div class="block embedded" data-block="resource">
          <span class="muted">embedded resource</span>
          <Contents contents={block.resource} />
        </div>
      );
    default:
      return (
        <div class="block" data-block="unknown">
          <Json value={block} />
        </div>
      );
  }
}

function Media(props: { kind: 'image' | 'audio'; mimeType: string; data: string }) {
  if (!MEDIA.test(props.mimeType) || !props.mimeType.startsWith(props.kind))
    return <span class="error-text">not shown: mime type {props.mimeType}</span>;
  const src = `data:${props.mimeType};base64,${props.data}`;
  if (props.kind === 'image') return <Image src={src} />;
  return (
    <audio controls src={src}>
      <track kind="captions" />
    </audio>
  );
}

/** An image with its size in pixels; one smaller than a glance can find (a 1×1 PNG) is drawn larger, outlined. */
function Image(props: { src: string }) {
  const [size, setSize] = useState<{ width: number; height: number } | undefined>(undefined);
  const tiny = size !== undefined && (size.width < 32 || size.height < 32);
  return (
    <span class="image">
      <img
        src={props.src}
        alt="returned by the server"
        class={tiny ? 'tiny' : undefined}
        onLoad={(e) =>
          setSize({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })
        }
      />
      {size ? (
        <span class="muted" data-image-size>
          {' '}
          {size.width} × {size.height} px
        </span>
      ) : null}
    </span>
  );
}

function ResourceLink(props: {
  uri: string;
  name?: string | undefined;
  mimeType?: string | undefined;
  description?: string | undefined;
}) {
  const [contents, setContents] = useState<ResourceContents[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <div class="block link" data-block="resource_link">
      <span class="muted">resource link</span> <strong>{props.name ?? props.uri}</strong>{' '}
      <code>{props.uri}</code> {props.mimeType ? <span class="muted">{props.mimeType}</span> : null}
      {props.description ? <div class="help">{props.description}</div> : null}
      <button
        type="button"
        class="small"
        onClick={() =>
          act<{ contents: ResourceContents[] }>('read', { uri: props.uri }).then(
            (r) => setContents(r.contents),
            (e: Error) => setError(e.message),
          )
        }
      >
        read
      </button>
      {error ? <div class="error-text">{error}</div> : null}
      {contents?.map((c, i) => (
        <Contents key={String(i)} contents={c} />
      ))}
    </div>
  );
}

/** One resource's contents: text (Markdown when its type says so, JSON pretty-printed) or a blob. */
export function Contents(props: { contents: ResourceContents }) {
  const c = props.contents;
  const mime = c.mimeType ?? '';
  return (
    <div class="contents" data-contents={c.uri}>
      <div class="muted" data-contents-facts>
        <code>{c.uri}</code> {mime}
        {'blob' in c && typeof c.blob === 'string' ? `, ${approxBytes(c.blob)}` : ''}
      </div>
      {'text' in c && typeof c.text === 'string' ? (
        mime === 'text/markdown' ? (
          <Markdown text={c.text} />
        ) : (
          <pre>{prettyText(c.text, mime)}</pre>
        )
      ) : 'blob' in c && typeof c.blob === 'string' ? (
        MEDIA.test(mime) ? (
          <Media kind={mime.startsWith('image') ? 'image' : 'audio'} mimeType={mime} data={c.blob} />
        ) : (
          <span>
            binary, {approxBytes(c.blob)}{' '}
            <a
              download={c.uri.split('/').pop() || 'resource'}
              href={`data:application/octet-stream;base64,${c.blob}`}
            >
              save
            </a>
          </span>
        )
      ) : (
        <Json value={c} />
      )}
    </div>
  );
}

function prettyText(text: string, mime: string): string {
  if (!/json/.test(mime)) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function approxBytes(base64: string): string {
  const bytes =
    Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}
