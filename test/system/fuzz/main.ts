/**
 * Runs the fuzzer by hand against a running service and prints the report:
 *   npx tsx test/system/fuzz/main.ts --base-url http://127.0.0.1:3000 --api-key svc_... [--seed N] [--requests N] [--concurrency N]
 * Without --seed a fresh one is drawn and printed, so a failing run can be replayed. Exits 1 on findings.
 */
import { parseArgs } from "node:util"

import { fuzzPassed, runFuzz } from "./runFuzz.js"

const { values } = parseArgs({
  options: {
    "base-url": { type: "string" },
    "api-key": { type: "string" },
    seed: { type: "string" },
    requests: { type: "string", default: "20000" },
    concurrency: { type: "string", default: "12" }
  }
})
if (values["base-url"] === undefined || values["api-key"] === undefined) {
  console.error("usage: main.ts --base-url URL --api-key svc_... [--seed N] [--requests N] [--concurrency N]")
  process.exit(2)
}
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed)
const report = await runFuzz({
  baseUrl: values["base-url"],
  apiKey: values["api-key"],
  seed,
  requests: Number(values.requests),
  concurrency: Number(values.concurrency),
  log: (line) => console.error(line)
})
console.log(JSON.stringify(report, null, 2))
console.error(
  `fuzz: ${
    fuzzPassed(report) ? "passed" : "FAILED"
  } (seed ${seed}, ${report.requests} requests in ${report.durationMs} ms)`
)
process.exit(fuzzPassed(report) ? 0 : 1)
