/**
 * The `amqp` check against the machine's RabbitMQ (127.0.0.1:5672, user guest/guest): the
 * connection and a channel open (guest/guest by default, or the user and password given), a
 * wrong password, an unknown vhost, a closed port, a server that is not a broker and
 * OUTBOUND_DENY. Loaded through runCheck, as a probe loads it.
 */
import { randomBytes } from "node:crypto"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"

import { runCheck } from "../../probes/checks/runCheck.js"
import type { CheckDefinition } from "../../src/domain/CheckJob.js"
import { parseAddressList } from "../../src/domain/NetworkAddress.js"
import { outboundGuard } from "../../src/runtime/OutboundGuard.js"
import { closedPort, tcpServer } from "../support/Servers.js"

const job = (url: string, password: string | null = null): CheckDefinition => ({
  monitorId: "m",
  type: "amqp",
  url,
  timeoutMs: 5000,
  expectedStatusCode: 200,
  intervalSeconds: 60,
  password
})

describe("amqp check", () => {
  it.live("passes once a channel is open: guest by default, and a user with its password on vhost /", () =>
    Effect.gen(function*() {
      const byDefault = yield* runCheck(job("amqp://127.0.0.1"))
      expect(byDefault).toMatchObject({ ok: true, error: null, statusCode: null })
      expect(byDefault.timings.firstByteMs).toBeGreaterThanOrEqual(0)
      const named = yield* runCheck(job("amqp://guest@localhost:5672/%2F", "guest"))
      expect(named).toMatchObject({ ok: true, error: null })
    }))

  it.live("fails in fixed words: wrong password, unknown vhost, closed port, not a broker", () =>
    Effect.gen(function*() {
      const wrong = yield* runCheck(job("amqp://guest@127.0.0.1", "not-the-password"))
      expect(wrong).toMatchObject({ ok: false, error: "authentication failed" })
      const vhost = `e44-missing-${randomBytes(4).toString("hex")}`
      const missing = yield* runCheck(job(`amqp://127.0.0.1/${vhost}`))
      expect(missing).toMatchObject({ ok: false, error: `vhost ${vhost} does not exist or the user may not open it` })
      const port = yield* closedPort
      const closed = yield* runCheck(job(`amqp://127.0.0.1:${port}`))
      expect(closed).toMatchObject({ ok: false, error: `connection refused by 127.0.0.1:${port}` })
      const other = yield* tcpServer((socket) =>
        socket.once("data", () => socket.end("HTTP/1.1 400 Bad Request\r\n\r\n"))
      )
      const notAmqp = yield* runCheck(job(`amqp://127.0.0.1:${other.port}`))
      expect(notAmqp).toMatchObject({ ok: false, error: "not an AMQP broker (bad frame)" })
    }))

  it.live("never connects to an address of OUTBOUND_DENY", () =>
    Effect.gen(function*() {
      const outbound = outboundGuard(Result.getOrThrow(parseAddressList("127.0.0.1/32")))
      const outcome = yield* runCheck(job("amqp://localhost"), { outbound })
      expect(outcome.ok).toBe(false)
      expect(outcome.error).toContain("refused by OUTBOUND_DENY")
    }))
})
