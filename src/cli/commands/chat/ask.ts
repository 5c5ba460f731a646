// What `mcpkit chat` asks the person inline during a turn (a tool call's approval, a server's sampling request and its
// answer, a server's form or URL), and how it shows the chat's events: the model's text on stdout as it streams,
// everything else on stderr.
import type { ApprovalDecision, ApprovalRequest } from '../../../host/approval.js';
import type { ChatEvent } from '../../../host/chat/chat.js';
import type { SamplingReview, SamplingVerdict } from '../../../host/server-requests.js';
import type { ElicitParams, ElicitResult, JsonSchema, SamplingContent } from '../../../spec/types.js';
import { cut, note, terminalSafe } from '../../shared/output.js';
import type { Lines } from '../../shared/terminal.js';

/** Asks about a tool call: allow once, for the session, or deny. */
export async function askApproval(lines: Lines, request: ApprovalRequest): Promise<ApprovalDecision> {
  const args = JSON.stringify(request.arguments ?? {});
  const hints = request.annotations?.destructiveHint === true ? ' (destructive)' : '';
  const change = request.change;
  if (change !== undefined) {
    note(
      `! ${request.qualifiedName} on ${request.server} changed since it was approved (${change.fields.join(', ')}):`,
    );
    note(change.diff.replace(/^/gm, '    '));
  }
  note(`? ${request.qualifiedName}${hints} on ${request.server} wants to run with ${cut(args, 300)}`);
  // An answer that is none of these is asked again (a typo is no denial); the end of input denies.
  for (;;) {
    const line = await lines.next('  allow [o]nce, for the [s]ession, or [d]eny? ');
    if (line === undefined) return 'deny';
    const answer = line.trim().toLowerCase();
    if (answer === 'o' || answer === 'once' || answer === 'y' || answer === 'yes') return 'allow-once';
    if (answer === 's' || answer === 'session') return 'allow-session';
    if (answer === 'd' || answer === 'deny' || answer === 'n' || answer === 'no') return 'deny';
    note(`  ${answer === '' ? 'no answer' : `"${cut(answer, 40)}" is not an answer`}: type o, s or d`);
  }
}

/** Shows a server's sampling request, then the model's answer, each to be allowed or declined. */
export function reviewSampling(lines: Lines): SamplingReview {
  return async (review): Promise<SamplingVerdict> => {
    if (!review.result) {
      const last = review.params.messages[review.params.messages.length - 1];
      note(
        `? ${review.server} asks the model: "${cut(last ? text(last.content) : '', 300)}" (up to ${review.params.maxTokens} tokens)`,
      );
      const yes = await yesNo(lines, '  send it to the model? [y/n] ');
      return yes ? { approve: true } : { approve: false, reason: 'declined in mcpkit chat' };
    }
    note(`  the model answered: "${cut(text(review.result.content), 300)}"`);
    const yes = await yesNo(lines, `  give this answer to ${review.server}? [y/n] `);
    return yes ? { approve: true } : { approve: false, reason: 'declined in mcpkit chat' };
  };
}

/** A server's elicitation: a URL to open, or a form asked field by field. */
export async function askElicitation(
  lines: Lines,
  server: string,
  params: ElicitParams,
): Promise<ElicitResult> {
  note(`? ${server} asks: ${params.message}`);
  if (params.mode === 'url') {
    note(`  open: ${params.url}`);
    return (await yesNo(lines, '  done (or accept)? [y/n] ')) ? { action: 'accept' } : { action: 'decline' };
  }
  const answer = (await lines.ask('  answer? [y]es, [n]o (decline), [c]ancel ')).toLowerCase();
  if (answer === 'c' || answer === 'cancel') return { action: 'cancel' };
  if (answer !== 'y' && answer !== 'yes') return { action: 'decline' };
  const schema = params.requestedSchema;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [name, field] of Object.entries(properties)) {
    const options = Array.isArray(field.enum) ? ` (${(field.enum as unknown[]).join('/')})` : '';
    const title = typeof field.title === 'string' ? field.title : name;
    const mark = required.has(name) ? '*' : '';
    const value = await lines.ask(`  ${title}${mark}${options} [${String(field.type ?? 'string')}]: `);
    if (value === '') continue;
    content[name] = coerce(value, field);
  }
  return { action: 'accept', content };
}

/** Shows a chat's events: streamed text on stdout, calls and their results on stderr. */
export function renderer(): (event: ChatEvent) => void {
  let open = false;
  const end = () => {
    if (open) process.stdout.write('\n');
    open = false;
  };
  return (event) => {
    switch (event.type) {
      case 'text':
        process.stdout.write(terminalSafe(event.text));
        open = !event.text.endsWith('\n');
        break;
      case 'tool-call':
        end();
        note(`→ ${event.name} ${cut(JSON.stringify(event.arguments), 200)}`);
        break;
      case 'tool-result': {
        const r = event.result;
        const first = r.content[0];
        const summary =
          first === undefined ? '(no content)' : first.type === 'text' ? first.text : `[${first.type}]`;
        note(
          `← ${event.name}${r.isError === true ? ' (error)' : ''}: ${cut(summary, 200)} (${Math.round(event.durationMs)} ms)`,
        );
        break;
      }
      case 'retry':
        end();
        note(
          `(the model API answered HTTP ${event.status}: retry ${event.attempt} in ${Math.round(event.delayMs)} ms)`,
        );
        break;
      case 'resource':
        note(`(attached ${event.uri} to the next message)`);
        break;
      case 'tool-exposure':
        end();
        note(
          event.mode === 'all'
            ? `(every tool shown to the model: ${event.tools} tools, about ${event.tokens} tokens)`
            : `(${event.mode === 'provider' ? "the model API's own tool search" : 'tool search'} over ${event.tools} tools, about ${event.tokens} tokens of definitions not sent)`,
        );
        break;
      case 'done':
        end();
        if (event.stopReason === 'maxRounds') note('(stopped: the turn reached its limit of tool rounds)');
        break;
      default:
        break;
    }
  };
}

async function yesNo(lines: Lines, question: string): Promise<boolean> {
  const answer = (await lines.ask(question)).toLowerCase();
  return answer === 'y' || answer === 'yes';
}

function coerce(value: string, field: JsonSchema): string | number | boolean | string[] {
  if (field.type === 'number' || field.type === 'integer') {
    const n = Number(value);
    return Number.isFinite(n) ? n : value;
  }
  if (field.type === 'boolean') return /^(y|yes|true|1)$/i.test(value);
  if (field.type === 'array') return value.split(',').map((v) => v.trim());
  return value;
}

function text(content: SamplingContent | SamplingContent[]): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
}
