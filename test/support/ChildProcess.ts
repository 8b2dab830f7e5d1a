/** Runs the service's real entry point as a child process, the way `npm start` does. */
import type { ChildProcess } from "node:child_process"
import { spawn } from "node:child_process"
import { createServer } from "node:net"
import { fileURLToPath } from "node:url"

export const projectRoot = fileURLToPath(new URL("../..", import.meta.url))

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

export interface Service {
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
}

/**
 * Starts `tsx <entry>` with exactly the given environment (plus PATH and HOME). With
 * `directNode`, it runs `node --import tsx <entry>` instead: one process, so a signal sent to
 * `child` reaches the service itself rather than a tsx wrapper. With `plainNode`, `node <entry>`
 * (a built bundle, as `npm start` runs it).
 */
export const startService = (
  entry: string,
  env: Record<string, string>,
  options: { readonly directNode?: boolean; readonly plainNode?: boolean } = {}
): Service => {
  const [command, args] = options.plainNode
    ? [process.execPath, [entry]]
    : options.directNode
    ? [process.execPath, ["--import", "tsx", entry]]
    : [`${projectRoot}/node_modules/.bin/tsx`, [entry]]
  const child = spawn(command, args, {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (chunk) => (output += chunk))
  child.stderr?.on("data", (chunk) => (output += chunk))
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  return { child, output: () => output, exited }
}

/** Runs `tsx <entry> ...args` to completion and returns its exit code and output. */
export const runCommand = (entry: string, args: ReadonlyArray<string>, env: Record<string, string>, stdin?: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(`${projectRoot}/node_modules/.bin/tsx`, [entry, ...args], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.stdin.end(stdin ?? "")
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

/** Polls `url` until it answers 200, or fails after `timeoutMs`. */
export const waitFor200 = async (url: string, timeoutMs: number, service?: Service) => {
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
