/**
 * A short run of the whole-system fuzzer (test/system/fuzz) against a live server, so a
 * regression in bad-input handling shows up in `npm test`: every operation of the OpenAPI
 * document, no 5xx, every error in the contract's shape, every documented body and header as
 * documented, every admin operation 401 without credentials, and no unknown field, unknown or
 * bad query parameter or failing If-Match accepted, each 400 naming what was wrong.
 */
import { afterAll, beforeAll, expect, it } from "vitest"

import { startLiveStack } from "../support/LiveStack.js"
import { SuiteApiKey } from "../support/TestServer.js"
import { runFuzz } from "../system/fuzz/index.js"

let stack: Awaited<ReturnType<typeof startLiveStack>>
beforeAll(async () => {
  stack = await startLiveStack()
})
afterAll(() => stack?.dispose())

it("1,500 fuzzed requests find nothing", async () => {
  const report = await runFuzz({
    baseUrl: stack.baseUrl,
    apiKey: await stack.run(SuiteApiKey),
    seed: 20260601,
    requests: 1500,
    concurrency: 8
  })
  expect(report.failures).toEqual([])
  // The deliberate mistakes were made, every kind of them.
  expect(Object.keys(report.deviations).sort()).toEqual(
    ["badQueryValue", "idempotencyKey", "ifMatch", "unknownField", "unknownQuery"]
  )
  expect(report.uncoveredOperations).toEqual([])
  expect(report.transportErrors).toBe(0)
}, 120_000)
