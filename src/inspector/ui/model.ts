// The page's picture of the inspector: the connection and the live panes, kept from the snapshot and the events.
import type { ActivityEntry } from '../../host/activity-log.js';
import type { PendingAsk } from '../asks.js';
import type {
  CallEntry,
  ConnectionState,
  FeedEntry,
  InspectorEvent,
  LogEntry,
  ProgressEntry,
  Snapshot,
} from '../session.js';
import type { TrafficEntry } from '../tap.js';

/** What the page shows. */
export interface Model {
  live: boolean;
  state: ConnectionState | undefined;
  traffic: TrafficEntry[];
  logs: LogEntry[];
  feed: FeedEntry[];
  /** Progress by call id: running calls, and the last few finished ones (`done`). */
  progress: ProgressEntry[];
  /** Tool calls started from any page: the running ones and the last finished ones, oldest first. */
  calls: CallEntry[];
  asks: PendingAsk[];
  activity: ActivityEntry[];
  /** Whose activity log the pane shows. */
  activitySource: Snapshot['activitySource'];
  /** Bumped per list when the server says it changed. */
  versions: { tools: number; prompts: number; resources: number };
  /** How many updates the server announced, per resource URI (since the page opened). */
  updates: Record<string, number>;
}

export type Action =
  | { type: 'snapshot'; snapshot: Snapshot }
  | { type: 'live'; live: boolean }
  | { type: 'clear'; pane: 'traffic' | 'logs' | 'feed' | 'activity' }
  | InspectorEvent;

const KEEP = 1000;
const KEEP_DONE = 8;
const KEEP_CALLS = 20;

export const EMPTY: Model = {
  live: false,
  state: undefined,
  traffic: [],
  logs: [],
  feed: [],
  progress: [],
  calls: [],
  asks: [],
  activity: [],
  activitySource: 'inspector',
  versions: { tools: 0, prompts: 0, resources: 0 },
  updates: {},
};

function append<T>(list: T[], item: T): T[] {
  const next = list.length >= KEEP ? list.slice(list.length - KEEP + 1) : list.slice();
  next.push(item);
  return next;
}

/** The model after `action`. */
export function reduce(model: Model, action: Action): Model {
  switch (action.type) {
    case 'snapshot': {
      const s = action.snapshot;
      return {
        ...model,
        state: s.state,
        traffic: s.traffic,
        logs: s.logs,
        feed: s.feed,
        progress: s.progress,
        calls: s.calls,
        asks: s.asks,
        activity: s.activity,
        activitySource: s.activitySource,
      };
    }
    case 'live':
      return { ...model, live: action.live };
    case 'clear':
      return { ...model, [action.pane]: [] };
    case 'state':
      return { ...model, state: action.state };
    case 'traffic':
      return { ...model, traffic: append(model.traffic, action.entry) };
    case 'log':
      return { ...model, logs: append(model.logs, action.entry) };
    case 'feed': {
      const entry = action.entry;
      const next = { ...model, feed: append(model.feed, entry) };
      if (entry.kind === 'list_changed' && entry.detail in model.versions) {
        const list = entry.detail as keyof Model['versions'];
        next.versions = { ...model.versions, [list]: model.versions[list] + 1 };
      }
      if (entry.kind === 'resource_updated')
        next.updates = { ...model.updates, [entry.detail]: (model.updates[entry.detail] ?? 0) + 1 };
      return next;
    }
    case 'progress': {
      const others = model.progress.filter((p) => p.callId !== action.entry.callId);
      const done = others.filter((p) => p.done);
      const running = others.filter((p) => !p.done);
      const kept = done.slice(Math.max(0, done.length - KEEP_DONE + 1));
      return { ...model, progress: [...kept, ...running, action.entry] };
    }
    case 'call': {
      const others = model.calls.filter((c) => c.callId !== action.entry.callId);
      return {
        ...model,
        calls: [...others.slice(Math.max(0, others.length - KEEP_CALLS + 1)), action.entry],
      };
    }
    case 'ask':
      return { ...model, asks: [...model.asks, action.ask] };
    case 'answered':
      return { ...model, asks: model.asks.filter((a) => a.id !== action.outcome.id) };
    case 'activity':
      return { ...model, activity: append(model.activity, action.entry) };
    case 'activity-source':
      return { ...model, activity: action.entries.slice(-KEEP), activitySource: action.source };
  }
}
