/**
 * A redis-server of the test's own on a free loopback port, for tests that kill Redis: the
 * machine's shared Redis (and everybody else's tests on it) is never touched. `kill` SIGKILLs
 * it; `start` brings it back on the same port, empty (no persistence), as after a crash.
 */
import type { ChildProcess } from "node:child_process"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"

import { Context, Effect, Layer } from "effect"

import { freePort } from "./ChildProcess.js"

export interface OwnRedis {
  readonly port: number
  readonly url: string
  /** SIGKILL; resolves once the process is gone. */
  readonly kill: () => Promise<void>
  /** Starts it again on the same port; resolves once it accepts connections. */
  readonly start: () => Promise<void>
}

export class OwnRedisServer extends Context.Tag("test/OwnRedisServer")<OwnRedisServer, OwnRedis>() {}

/**
 * `aclUsers`: ACL rules per user (after `user <name>`), kept in an ACL file so that a restart
 * brings the users back; the default user keeps every right, for the test's own checks.
 */
export const startOwnRedis = async (
  options: { readonly aclUsers?: Readonly<Record<string, ReadonlyArray<string>>> } = {}
): Promise<OwnRedis & { readonly stop: () => Promise<void> }> => {
  const port = await freePort()
  const dir = mkdtempSync(Path.join(tmpdir(), "sps-redis-"))
  const aclFile = Path.join(dir, "users.acl")
  const aclUsers = Object.entries(options.aclUsers ?? {})
  if (aclUsers.length > 0) {
    const lines = [
      "user default on nopass ~* &* +@all",
      ...aclUsers.map(([user, rules]) => `user ${user} ${rules.join(" ")}`)
    ]
    writeFileSync(aclFile, `${lines.join("\n")}\n`, { mode: 0o600 })
  }
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()

  const start = async () => {
    const process = spawn("redis-server", [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
      ...(aclUsers.length > 0 ? ["--aclfile", aclFile] : [])
    ], { stdio: ["ignore", "pipe", "pipe"] })
    child = process
    exited = new Promise((resolve) => process.once("exit", () => resolve()))
    let output = ""
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${port}:\n${output}`)), 10_000)
      process.stdout!.on("data", (chunk) => {
        output += chunk
        if (output.includes("Ready to accept connections")) {
          clearTimeout(timer)
          resolve()
        }
      })
      process.once("exit", (code) => {
        clearTimeout(timer)
        reject(new Error(`redis-server exited (${code}) on ${port}:\n${output}`))
      })
    })
  }

  const kill = async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    await exited
  }

  await start()
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    stop: async () => {
      await kill()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** The server for the life of the layer; killed at the end whatever state the test left it in. */
export const OwnRedisLive = Layer.scoped(
  OwnRedisServer,
  Effect.acquireRelease(Effect.promise(() => startOwnRedis()), (redis) => Effect.promise(redis.stop))
)
