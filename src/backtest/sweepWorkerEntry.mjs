// Entry of a sweep worker thread: registers tsx in this thread (a worker does not inherit the
// parent's module hooks on Node 20), then loads the TypeScript worker. Messages sent before the
// worker's listener is attached wait in the port's queue.
import { register } from 'tsx/esm/api';

register();
await import('./sweepWorker.ts');
