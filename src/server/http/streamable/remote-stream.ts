import { formatSseEvent } from '../../../framing/sse.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { encodeMessage } from '../../../jsonrpc/parse.js';
import { type ClusterLink, INSTANCE_ID_LENGTH } from '../cluster/link.js';
import type { SseSink } from '../core/http.js';
import type { OutStream } from './out-stream.js';

/** Cluster: the instance writing a stream, from its id (`<session tag><instance><n>`). */
export function producerOf(streamId: string, tag: string): string {
  return streamId.slice(tag.length, tag.length + INSTANCE_ID_LENGTH);
}

/** Cluster: a remote stream's writer must stay alive; when it dies, its unanswered requests fail here. */
export function watchProducer(stream: OutStream, cluster: ClusterLink, tag: string): void {
  const remote = stream.remote;
  if (remote === undefined) return;
  const producer = producerOf(stream.id, tag);
  let checking = false;
  stream.watch = setInterval(() => {
    if (checking) return;
    checking = true;
    cluster.isAlive(producer).then(
      (alive) => {
        checking = false;
        const sink = stream.sink;
        if (alive || !sink || remote.ended) return;
        remote.lost = true;
        failLost(stream, sink);
        stream.detach(true);
      },
      () => {
        checking = false;
      },
    );
  }, cluster.heartbeatMs);
  (stream.watch as { unref?: () => void }).unref?.();
}

/** Cluster: the requests of a stream whose instance died get an error instead of waiting forever. */
export function failLost(stream: OutStream, sink: SseSink): void {
  const remote = stream.remote;
  if (remote === undefined) return;
  for (const id of remote.requests) {
    if (remote.answered.has(id)) continue;
    remote.answered.add(id);
    const error = {
      code: ErrorCode.InternalError,
      message:
        'The server instance running this request stopped before answering; the request may or may not have taken effect',
    };
    sink.write(formatSseEvent({ data: encodeMessage({ jsonrpc: '2.0', id, error }) }));
  }
}
