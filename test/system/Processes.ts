/**
 * The service's processes as the system suite runs them: `node --import tsx <entry>` (one
 * process, so SIGKILL reaches the service itself, not a wrapper), output appended to a log
 * file per process under test/system/logs/, restartable under the same name.
 */
import type { ChildProcess } from "node:child_process"
import { spawn } from "node:child_process"
import { createWriteStream, mkdirSync } from "node:fs"
import * as Path from "node:path"

import { projectRoot } from "../support/ChildProcess.js"

export const logDir = Path.join(projectRoot, "test/artifacts/system-logs")

/** Every running child, so none outlives the suite when it is interrupted or fails. */
const running = new Set<ChildProcess>()
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL")
})
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130))

export interface ManagedProcess {
  readonly name: string
  /** Whether the current incarnation is running. */
  readonly alive: () => boolean
  /** Starts a new incarnation (the previous one must be gone). */
  readonly start: () => void
  /** SIGKILL; resolves once the process is gone. */
  readonly kill: () => Promise<void>
  /** SIGTERM (a clean shutdown), SIGKILL after `graceMs`; resolves once gone. */
  readonly stop: (graceMs?: number) => Promise<void>
  /** Resolves when the current incarnation has written `text` (since it started). */
  readonly waitForOutput: (text: string, timeoutMs: number) => Promise<void>
  /** What the current incarnation has written since it started (its first 200,000 characters or so). */
  readonly output: () => string
  readonly starts: () => number
}

export const managedProcess = (name: string, entry: string, env: Record<string, string>): ManagedProcess => {
  mkdirSync(logDir, { recursive: true })
  const log = createWriteStream(Path.join(logDir, `${name}.log`), { flags: "w" })
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()
  let output = ""
  let starts = 0

  const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null

  const start = () => {
    if (alive()) throw new Error(`${name} is already running`)
    starts++
    output = ""
    log.write(`\n==== start #${starts} at ${new Date().toISOString()} ====\n`)
    const process_ = spawn(process.execPath, ["--import", "tsx", entry], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    child = process_
    running.add(process_)
    const collect = (chunk: Buffer) => {
      log.write(chunk)
      // Only the head is kept in memory, for waitForOutput (start-up lines).
      if (output.length < 200_000) output += chunk.toString("utf8")
    }
    process_.stdout!.on("data", collect)
    process_.stderr!.on("data", collect)
    exited = new Promise((resolve) =>
      process_.once("exit", (code, signal) => {
        running.delete(process_)
        log.write(`==== exit code=${code} signal=${signal} at ${new Date().toISOString()} ====\n`)
        resolve()
      })
    )
  }

  const kill = async () => {
    if (alive()) child!.kill("SIGKILL")
    await exited
  }

  const stop = async (graceMs = 10_000) => {
    if (alive()) child!.kill("SIGTERM")
    const timer = setTimeout(() => alive() && child!.kill("SIGKILL"), graceMs)
    await exited
    clearTimeout(timer)
  }

  const waitForOutput = async (text: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs
    while (!output.includes(text)) {
      if (!alive()) throw new Error(`${name} exited before writing "${text}":\n${output.slice(-4000)}`)
      if (Date.now() > deadline) {
        throw new Error(`${name} did not write "${text}" within ${timeoutMs} ms:\n${output.slice(-4000)}`)
      }
      await sleep(50)
    }
  }

  return { name, alive, start, kill, stop, waitForOutput, output: () => output, starts: () => starts }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export const until = async (
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 100
) => {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(everyMs)
  }
}
