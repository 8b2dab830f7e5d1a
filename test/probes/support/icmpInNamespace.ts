/**
 * Runs one `icmp` check and prints its outcome as JSON: icmpCheck.test.ts starts this inside a
 * network namespace of its own (`ip netns exec`), where the address pinged gets no reply.
 * Arguments: the target, the ping count, the time-out in ms.
 */
import { Effect } from "effect"

import { icmpCheck } from "../../../probes/checks/icmp.js"

const [url = "", count = "1", timeoutMs = "1000"] = process.argv.slice(2)
const outcome = await Effect.runPromise(icmpCheck({ url, pingCount: Number(count), timeoutMs: Number(timeoutMs) }))
process.stdout.write(JSON.stringify(outcome))
