import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { CheckedFetch } from './options.js';

/** Options of {@link checkedFetch}. */
export interface CheckedFetchOptions {
  /** How host names are resolved. Default `node:dns` `lookup` (the system resolver, as the global fetch uses). */
  readonly lookup?: LookupFunction;
}

/**
 * A {@link CheckedFetch} on `node:http` and `node:https` for the OAuth client (its `checkedFetch` option): the host
 * name is resolved once, every address it resolves to goes through `admit` (one refused fails the request), and the
 * connection is made to those same addresses, so a DNS answer cannot change between the check and the connection.
 * TLS still verifies the certificate against the host name. A fresh connection per request, no redirects followed,
 * bodies of text, form parameters or bytes (what OAuth requests send).
 *
 * @example
 * const auth = new OAuthClient({ grant, checkedFetch: checkedFetch() });
 */
export function checkedFetch(options: CheckedFetchOptions = {}): CheckedFetch {
  const resolve = options.lookup ?? dnsLookup;
  return (url, init, admit) => {
    const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
      resolve(hostname, { ...lookupOptions, all: true }, (error, found) => {
        if (error) return callback(error, '', 0);
        const addresses = typeof found === 'string' ? [{ address: found, family: 0 }] : found;
        try {
          if (addresses.length === 0) throw new Error(`${hostname} resolved to no address`);
          for (const { address } of addresses) admit(address);
        } catch (refused) {
          // The refusal is the request's error, as it is (its code names the rule).
          return callback(refused as NodeJS.ErrnoException, '', 0);
        }
        if (lookupOptions.all === true) return callback(null, addresses);
        const first = addresses[0] as LookupAddress;
        return callback(null, first.address, first.family);
      });
    };
    return send(url, init, lookup);
  };
}

function send(url: URL, init: RequestInit, lookup: LookupFunction): Promise<Response> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return Promise.reject(new TypeError(`checkedFetch speaks HTTP and HTTPS only, not ${url.protocol}`));
  const headers = new Headers(init.headers);
  let body: Buffer | undefined;
  try {
    body = bodyBytes(init.body, headers);
  } catch (e) {
    return Promise.reject(e);
  }
  const plain: OutgoingHttpHeaders = Object.fromEntries(headers);
  if (body !== undefined) plain['content-length'] = body.length;
  const method = init.method ?? 'GET';
  return new Promise<Response>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      { method, headers: plain, lookup, agent: false, ...(init.signal ? { signal: init.signal } : {}) },
      (response) => {
        try {
          resolve(toResponse(response, method));
        } catch (e) {
          response.destroy();
          reject(e);
        }
      },
    );
    request.once('error', reject);
    request.end(body);
  });
}

/** The body as bytes, and the content type fetch would give it when the caller set none. */
function bodyBytes(body: RequestInit['body'], headers: Headers): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  const [bytes, type] =
    typeof body === 'string'
      ? [Buffer.from(body), 'text/plain;charset=UTF-8']
      : body instanceof URLSearchParams
        ? [Buffer.from(body.toString()), 'application/x-www-form-urlencoded;charset=UTF-8']
        : body instanceof ArrayBuffer
          ? [Buffer.from(body), undefined]
          : ArrayBuffer.isView(body)
            ? [Buffer.from(body.buffer, body.byteOffset, body.byteLength), undefined]
            : [undefined, undefined];
  if (bytes === undefined) throw new TypeError('checkedFetch sends text, form parameters or bytes only');
  if (type !== undefined && !headers.has('content-type')) headers.set('content-type', type);
  return bytes;
}

function toResponse(response: IncomingMessage, method: string): Response {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] ?? '', raw[i + 1] ?? '');
  const status = response.statusCode ?? 0;
  const empty = method === 'HEAD' || status === 204 || status === 205 || status === 304;
  if (empty) response.resume();
  return new Response(empty ? null : webStream(response), {
    status,
    statusText: response.statusMessage ?? '',
    headers,
  });
}

/** The response body as a web stream, read as it is pulled (the reader's pace is the socket's); cancelling ends it. */
function webStream(response: IncomingMessage): ReadableStream<Uint8Array> {
  const chunks: AsyncIterator<Buffer> = response[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done === true) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return?.();
    },
  });
}
