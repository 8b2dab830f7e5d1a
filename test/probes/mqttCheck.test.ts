/**
 * The `mqtt` check against real Mosquitto brokers: the machine's (127.0.0.1:1883, anonymous) and
 * one started here on a free loopback port that wants a user and password (its password file
 * made with mosquitto_passwd), so a refused login is a real CONNACK. Also a closed port and a
 * server that is not a broker. Loaded through runCheck, as a probe loads it.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { describe, expect, it } from "@effect/vitest"
import { Effect, Result } from "effect"

import { connectPacket } from "../../probes/checks/mqtt.js"
import { runCheck } from "../../probes/checks/runCheck.js"
import type { CheckDefinition } from "../../src/domain/CheckJob.js"
import { parseAddressList } from "../../src/domain/NetworkAddress.js"
import { outboundGuard } from "../../src/runtime/OutboundGuard.js"
import { closedPort, tcpServer } from "../support/Servers.js"

const job = (url: string, password: string | null = null): CheckDefinition => ({
  monitorId: "m",
  type: "mqtt",
  url,
  timeoutMs: 3000,
  expectedStatusCode: 200,
  intervalSeconds: 60,
  password
})

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

/** A Mosquitto broker of its own, on a free loopback port, that lets in `user` with `password` only. */
const privateBroker = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = mkdtempSync(join(tmpdir(), "e44-mqtt-"))
    // The broker drops root for its own user, which must read the password file.
    chmodSync(dir, 0o755)
    const user = "probe"
    // Long enough that CONNECT's Remaining Length takes two bytes.
    const password = `pw-mqtt-check-${"x".repeat(200)}`
    execFileSync("mosquitto_passwd", ["-b", "-c", join(dir, "passwd"), user, password])
    chmodSync(join(dir, "passwd"), 0o644)
    // A port free a moment ago (mosquitto cannot listen on port 0): another process may take it
    // first, and then the broker exits; it starts again on another.
    for (let attempt = 1;; attempt++) {
      const port = await Effect.runPromise(closedPort)
      writeFileSync(
        join(dir, "mosquitto.conf"),
        `listener ${port} 127.0.0.1\nallow_anonymous false\npassword_file ${join(dir, "passwd")}\npersistence false\n`
      )
      const broker: ChildProcess = spawn("mosquitto", ["-c", join(dir, "mosquitto.conf")], { stdio: "ignore" })
      while (broker.exitCode === null && !(await listening(port))) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      if (broker.exitCode === null) return { broker, dir, port, user, password }
      if (attempt === 3) throw new Error(`mosquitto exited with ${broker.exitCode} three times`)
    }
  }),
  ({ broker, dir }) =>
    Effect.promise(async () => {
      const exited = new Promise((resolve) => broker.once("exit", resolve))
      broker.kill("SIGTERM")
      await exited
      rmSync(dir, { recursive: true, force: true })
    })
)

describe("mqtt check", () => {
  it.live("passes when CONNACK accepts: anonymously, and with a user and password", () =>
    Effect.gen(function*() {
      const open = yield* runCheck(job("mqtt://127.0.0.1:1883"))
      expect(open).toMatchObject({ ok: true, error: null })
      expect(open.timings.firstByteMs).toBeGreaterThanOrEqual(0)
      const broker = yield* privateBroker
      const loggedIn = yield* runCheck(job(`mqtt://${broker.user}@127.0.0.1:${broker.port}`, broker.password))
      expect(loggedIn).toMatchObject({ ok: true, error: null })
    }))

  it.live("fails in fixed words: refused login, closed port, not a broker", () =>
    Effect.gen(function*() {
      const broker = yield* privateBroker
      const wrong = yield* runCheck(job(`mqtt://${broker.user}@127.0.0.1:${broker.port}`, "not-the-password"))
      // Mosquitto answers a wrong password with return code 5.
      expect(wrong).toMatchObject({ ok: false, error: "CONNACK refused: not authorized" })
      const anonymous = yield* runCheck(job(`mqtt://127.0.0.1:${broker.port}`))
      expect(anonymous).toMatchObject({ ok: false, error: "CONNACK refused: not authorized" })
      const port = yield* closedPort
      const closed = yield* runCheck(job(`mqtt://127.0.0.1:${port}`))
      expect(closed).toMatchObject({ ok: false, error: `connection refused by 127.0.0.1:${port}` })
      const other = yield* tcpServer((socket) => socket.once("data", () => socket.end("SSH-2.0-OpenSSH\r\n")))
      const notMqtt = yield* runCheck(job(`mqtt://127.0.0.1:${other.port}`))
      expect(notMqtt).toMatchObject({ ok: false, error: "not an MQTT broker (no CONNACK)" })
      const outbound = outboundGuard(Result.getOrThrow(parseAddressList("127.0.0.1/32")))
      const denied = yield* runCheck(job("mqtt://127.0.0.1:1883"), { outbound })
      expect(denied).toMatchObject({ ok: false, error: "connection to 127.0.0.1 refused by OUTBOUND_DENY" })
    }))

  it("writes a CONNECT of MQTT 3.1.1 with the user and password flags", () => {
    const packet = connectPacket("probe", "pw")
    expect(packet[0]).toBe(0x10)
    expect(packet.subarray(2, 8).toString("latin1")).toBe("\u0000\u0004MQTT")
    expect(packet[8]).toBe(4)
    expect(packet[9]).toBe(0xc2)
    expect(connectPacket(undefined, null)[9]).toBe(0x02)
  })
})
