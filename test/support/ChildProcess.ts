/** Runs the service's real entry point as a child process, the way `npm start` does. */
import type { ChildProcess } from "node:child_process"
import { spawn } from "node:child_process"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"

export const projectRoot = fileURLToPath(new URL("../..", import.meta.url))

/**
 * A loopback port that was free a moment ago: bound and closed again, so nothing listens on it.
 * Only for a port that must stay closed (connections refused: metricsRoles' failing webhook,
 * the CLI's "unreachable" case), and for redis-server, which cannot take port 0 (it means "no TCP"
 * there) and so starts again on another when it finds this one taken (RedisServer.ts). A service
 * the test starts binds port 0 instead and the test reads the port from its log (`listeningUrl`,
 * `metricsUrl`): another process on the machine can take this one before the child binds it.
 */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** A process whose output can be watched: a Service, the system suite's processes. */
export interface Watched {
  readonly output: () => string
  /** Whether the process is still running. */
  readonly alive: () => boolean
}

export interface Service extends Watched {
  readonly child: ChildProcess
  readonly exited: Promise<number | null>
}

/**
 * The URL the HTTP server bound, from its `Listening on http://HOST:PORT` line (the real port
 * when PORT=0); a wildcard HOST (0.0.0.0) is reached at 127.0.0.1. Undefined until the line is
 * whole (output comes in chunks, which may end inside the port).
 */
export const listeningUrlIn = (output: string): string | undefined => {
  const found = /Listening on (http:\/\/[^\s"/]+)(?=[\s"])/.exec(output)?.[1]
  return found?.replace("//0.0.0.0:", "//127.0.0.1:")
}

/**
 * `http://127.0.0.1:PORT/metrics` of a metrics server (METRICS_PORT, PROBE_METRICS_PORT), from
 * its `Metrics on port N at ADDRESS` line; the address must be loopback or a wildcard.
 */
export const metricsUrlIn = (output: string): string | undefined => {
  const port = /Metrics on port (\d+)(?=[\s"])/.exec(output)?.[1]
  return port === undefined ? undefined : `http://127.0.0.1:${port}/metrics`
}

/** Waits until `read` finds something in the output; fails with the output if the child exits or time runs out. */
const fromOutput = async (
  service: Watched,
  read: (output: string) => string | undefined,
  what: string,
  timeoutMs: number
): Promise<string> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = read(service.output())
    if (found !== undefined) return found
    if (!service.alive()) throw new Error(`The process exited before logging ${what}:\n${service.output()}`)
    if (Date.now() > deadline) throw new Error(`No ${what} logged within ${timeoutMs} ms:\n${service.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The base URL of the child's HTTP server (started with PORT=0, say), once it has logged it. */
export const listeningUrl = (service: Watched, timeoutMs: number) =>
  fromOutput(service, listeningUrlIn, "\"Listening on http://…\"", timeoutMs)

/** The URL of the child's own `GET /metrics` (METRICS_PORT or PROBE_METRICS_PORT 0, say), once it has logged it. */
export const metricsUrl = (service: Watched, timeoutMs: number) =>
  fromOutput(service, metricsUrlIn, "\"Metrics on port N\"", timeoutMs)

/** How a child runs its entry, and where. */
export interface RunOptions {
  /**
   * `node --import tsx <entry>` instead of `tsx <entry>`: one process, so a signal sent to
   * `child` reaches the program itself rather than a tsx wrapper (and one start instead of two).
   */
  readonly directNode?: boolean
  /** `node <entry>`: a built bundle, as `npm start` runs it. */
  readonly plainNode?: boolean
  /**
   * Node's flags before the entry. With `directNode` they come after tsx's loader, so that
   * `--import` may name a TypeScript module (test/support/NoDnsLookups.ts).
   */
  readonly nodeFlags?: ReadonlyArray<string>
  /** The working directory; the project's root unless told. */
  readonly cwd?: string
  /**
   * Whether the child gets the runner's HOME (it does unless told). Without it, node's `require`
   * does not search ~/.node_modules either: a bundle that must find no node_modules.
   */
  readonly home?: boolean
}

/** The command line and spawn options of `entry` run with exactly `env` (plus PATH, and HOME unless told). */
const commandFor = (entry: string, args: ReadonlyArray<string>, env: Record<string, string>, options: RunOptions) => {
  const flags = options.nodeFlags ?? []
  const [command, commandArgs] = options.plainNode
    ? [process.execPath, [...flags, entry, ...args]]
    : options.directNode
    ? [process.execPath, ["--import", "tsx", ...flags, entry, ...args]]
    : [`${projectRoot}/node_modules/.bin/tsx`, [...flags, entry, ...args]]
  const inherited = options.home === false
    ? { PATH: process.env.PATH ?? "" }
    : { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" }
  return { command, args: commandArgs, cwd: options.cwd ?? projectRoot, env: { ...inherited, ...env } }
}

/** Starts `tsx <entry>` (or as `options` say) with exactly the given environment (plus PATH and HOME). */
export const startService = (entry: string, env: Record<string, string>, options: RunOptions = {}): Service => {
  const { args, command, ...spawnOptions } = commandFor(entry, [], env, options)
  const child = spawn(command, args, { ...spawnOptions, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout?.on("data", (chunk) => (output += chunk))
  child.stderr?.on("data", (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  const alive = () => child.exitCode === null && child.signalCode === null
  return { child, output: () => output, exited, alive }
}

/**
 * Runs `tsx <entry> ...args` (or as `options` say) to completion, `stdin` (default: nothing) on
 * its standard input, and returns its exit code and output.
 */
export const runCommand = (
  entry: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options: RunOptions & { readonly stdin?: string } = {}
) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const { args: commandArgs, command, ...spawnOptions } = commandFor(entry, args, env, options)
    const child = spawn(command, commandArgs, { ...spawnOptions, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.stdin.end(options.stdin ?? "")
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

/** Polls `url` until it answers 200, or fails after `timeoutMs`. */
export const waitFor200 = async (url: string, timeoutMs: number, service?: Pick<Service, "output">) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) })
      if (response.status === 200) return response
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms\n${service?.output() ?? ""}`)
}
