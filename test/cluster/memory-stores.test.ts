// The shared store suites against the in-memory implementations (both "instances" share one object).
import { MemoryTaskStore } from '../../src/server/tasks/store.js';
import { MemoryBus } from '../../src/transport/cluster/bus.js';
import { MemorySessionStore } from '../../src/transport/cluster/session-store.js';
import { MemorySharedEventStore } from '../../src/transport/cluster/shared-event-store.js';
import { busSuite, sessionStoreSuite, sharedEventStoreSuite, taskStoreSuite } from './store-suites.js';

const both = <T>(store: T) => ({ a: store, b: store });

sessionStoreSuite('memory', () => both(new MemorySessionStore()));
sharedEventStoreSuite('memory', (options) => both(new MemorySharedEventStore(options)));
busSuite('memory', () => both(new MemoryBus()));
taskStoreSuite('memory', () => both(new MemoryTaskStore()));
