// The shared store suites against the in-memory implementations (both "instances" share one object).

import { MemoryBus } from '../../src/store/bus.js';
import { MemorySessionStore } from '../../src/store/session-store.js';
import { MemorySharedEventStore } from '../../src/store/shared-event-store.js';
import { MemoryTaskStore } from '../../src/store/task-store.js';
import { busSuite, sessionStoreSuite, sharedEventStoreSuite, taskStoreSuite } from './store-suites.js';

const both = <T>(store: T) => ({ a: store, b: store });

sessionStoreSuite('memory', () => both(new MemorySessionStore()));
sharedEventStoreSuite('memory', (options) => both(new MemorySharedEventStore(options)));
busSuite('memory', () => both(new MemoryBus()));
taskStoreSuite('memory', () => both(new MemoryTaskStore()));
