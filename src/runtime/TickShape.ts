/**
 * Keeps one of Node's `process.nextTick` records alive for the life of the process, so the shape
 * (V8 map) every later one shares is never collected. Node makes each record with one object
 * literal, `{ [async_id_symbol], [trigger_async_id_symbol], [async_context_frame], callback, args }`,
 * whose shapes hang off the empty object's only by weak links: a full garbage collection at a
 * moment no record is alive (the service's start-up, the embedded database's, has many) drops
 * them, and the next record builds new ones. After a few rounds of that, V8's feedback for the
 * literal has seen too many shapes and stays megamorphic for good, and nextTick, called about six
 * times per HTTP request, adds every property through the runtime: measured on the public fast
 * path, about 7 µs of CPU per request, a third more than a bare node:http server
 * (docs/benchmarks.md). Imported first by the entry point, before any collection can happen.
 */
import { createHook } from "node:async_hooks"

/** The record of one nextTick, taken from its async hook (the only public way to it); the hook is removed at once. */
let kept: object | undefined
const hook = createHook({
  init: (_asyncId, type, _triggerAsyncId, resource) => {
    if (type === "TickObject") kept ??= resource
  }
}).enable()
try {
  process.nextTick(() => {})
} finally {
  hook.disable()
}
