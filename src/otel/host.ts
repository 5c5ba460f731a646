/**
 * A host's spans: each server connection's client traced (`instrumentTransport`), an INTERNAL span around each routed
 * call (`route {qualified name}`) and each approval wait (`approval {qualified name}`), and the model loop's GenAI
 * spans: `chat {model}` (CLIENT) per model request and `execute_tool {name}` (INTERNAL) per tool call, so one trace
 * runs from the model's request through the routed call to the server that ran the tool.
 */
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { HostInstrumentation } from '../host/instrument.js';
import { instrumentTransport } from './client.js';
import { ATTR } from './conventions.js';
import { type Failure, failureOf, isToolError, TOOL_ERROR } from './errors.js';
import { Instruments, type OtelOptions } from './instruments.js';

/** mcpkit's own attributes of the host's spans (the conventions have none for routing and approvals). */
export const HOST_ATTR = {
  server: 'mcpkit.server.name',
  qualifiedName: 'mcpkit.tool.qualified_name',
  approvalMode: 'mcpkit.approval.mode',
  approvalOutcome: 'mcpkit.approval.outcome',
} as const;

/** The hooks for a host's `instrument` option. */
export function hostInstrumentation(options: OtelOptions = {}): HostInstrumentation {
  const o = new Instruments(options);
  const run = <T>(
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    work: () => Promise<T>,
    judge: (value: T, span: Span) => Failure | undefined,
  ): Promise<T> => {
    const parent = context.active();
    const span = o.tracer.startSpan(name, { kind, attributes }, parent);
    return context.with(trace.setSpan(parent, span), work).then(
      (value) => {
        end(span, judge(value, span));
        return value;
      },
      (e: unknown) => {
        end(span, failureOf(e));
        throw e;
      },
    );
  };
  return {
    transport: (_server, transport) => instrumentTransport(transport, options),
    call: (call, work) =>
      run(
        `route ${call.name}`,
        SpanKind.INTERNAL,
        { [ATTR.toolName]: call.tool, [HOST_ATTR.server]: call.server, [HOST_ATTR.qualifiedName]: call.name },
        work,
        (result) => (isToolError(result) ? TOOL_ERROR : undefined),
      ),
    approval: (call, work) =>
      run(
        `approval ${call.name}`,
        SpanKind.INTERNAL,
        {
          [ATTR.toolName]: call.tool,
          [HOST_ATTR.server]: call.server,
          [HOST_ATTR.qualifiedName]: call.name,
          [HOST_ATTR.approvalMode]: call.mode,
        },
        work,
        (outcome, span) => {
          const allowed = (outcome as { allowed?: unknown }).allowed;
          const by = (outcome as { by?: unknown }).by;
          span.setAttribute(HOST_ATTR.approvalOutcome, allowed === true ? 'allowed' : 'denied');
          if (typeof by === 'string') span.setAttribute('mcpkit.approval.by', by);
          return undefined;
        },
      ),
    model: (request, work) => {
      const attributes: Attributes = {
        [ATTR.operation]: 'chat',
        [ATTR.provider]: request.provider,
        [ATTR.requestModel]: request.model,
        [ATTR.maxTokens]: request.maxTokens,
      };
      if (request.temperature !== undefined) attributes[ATTR.temperature] = request.temperature;
      return run(`chat ${request.model}`, SpanKind.CLIENT, attributes, work, (response, span) => {
        span.setAttribute(ATTR.responseModel, response.model);
        span.setAttribute(ATTR.finishReasons, [response.stopReason]);
        if (response.usage) {
          span.setAttribute(ATTR.inputTokens, response.usage.inputTokens);
          span.setAttribute(ATTR.outputTokens, response.usage.outputTokens);
        }
        return undefined;
      });
    },
    tool: (use, work) =>
      run(
        `execute_tool ${use.name}`,
        SpanKind.INTERNAL,
        { [ATTR.operation]: 'execute_tool', [ATTR.toolName]: use.name, [ATTR.toolCallId]: use.id },
        work,
        (result) => (isToolError(result) ? TOOL_ERROR : undefined),
      ),
  };
}

function end(span: Span, failure: Failure | undefined): void {
  if (failure !== undefined) {
    span.setAttribute(ATTR.errorType, failure.type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
  }
  span.end();
}
