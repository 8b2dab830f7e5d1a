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

export interface RedisProcess {
  readonly port: number
  readonly child: ChildProcess
  readonly exited: Promise<void>
}

class RedisExited extends Error {
  constructor(readonly port: number, code: number | null, readonly output: string) {
    super(`redis-server exited (${code}) on ${port}:\n${output}`)
  }
}

/** redis-server with `args` on `port`; resolves once it accepts connections, fails if it exits first. */
export const spawnRedisServerOn = async (port: number, args: ReadonlyArray<string>): Promise<RedisProcess> => {
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  let output = ""
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`redis-server did not start on ${port}:\n${output}`))
    }, 10_000)
    child.stdout.on("data", (chunk) => {
      output += chunk
      // A sentinel (`--sentinel`) says instead that it is running, once it listens.
      if (output.includes("Ready to accept connections") || output.includes("Sentinel ID is")) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.stderr.on("data", (chunk) => (output += chunk))
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new RedisExited(port, code, output))
    })
  })
  return { port, child, exited }
}

/**
 * redis-server on a free loopback port, `args(port)` its arguments. The port is free when chosen
 * but may be taken before redis-server binds it (a busy machine): on "Address already in use"
 * it starts again on another, 5 attempts in all.
 */
export const spawnRedisServer = async (args: (port: number) => ReadonlyArray<string>): Promise<RedisProcess> => {
  for (let attempt = 1;; attempt++) {
    const port = await freePort()
    try {
      return await spawnRedisServerOn(port, args(port))
    } catch (error) {
      if (!(error instanceof RedisExited && error.output.includes("Address already in use")) || attempt === 5) {
        throw error
      }
    }
  }
}

export class OwnRedisServer extends Context.Service<OwnRedisServer, OwnRedis>()("test/OwnRedisServer") {}

/**
 * `aclUsers`: ACL rules per user (after `user <name>`), kept in an ACL file so that a restart
 * brings the users back; the default user keeps every right, for the test's own checks.
 */
export const startOwnRedis = async (
  options: { readonly aclUsers?: Readonly<Record<string, ReadonlyArray<string>>> } = {}
): Promise<OwnRedis & { readonly stop: () => Promise<void> }> => {
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
  const argsFor = (port: number) => [
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
  ]
  const started = (server: RedisProcess) => {
    child = server.child
    exited = server.exited
    return server.port
  }

  const port = started(await spawnRedisServer(argsFor))
  // Again on the port it had, so the clients' URL still holds: the killed server has just freed
  // it (another process could take it meanwhile; then this start fails, as it says).
  const start = async () => void started(await spawnRedisServerOn(port, argsFor(port)))
  const kill = async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    await exited
  }

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
export const OwnRedisLive = Layer.effect(
  OwnRedisServer,
  Effect.acquireRelease(Effect.promise(() => startOwnRedis()), (redis) => Effect.promise(redis.stop))
)
