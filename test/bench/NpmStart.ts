/**
 * What the benchmarks share to run the service as a self-hoster does: `npm start` in the
 * repository, in a process group of its own, with a fresh environment; and the API key a bench
 * makes with the password the first start prints.
 */
import { type ChildProcess, spawn } from "node:child_process"

import { freePort, projectRoot, waitFor200 } from "../support/ChildProcess.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface Started {
  readonly child: ChildProcess
  readonly output: () => string
  /** Set when the process ended before `stop`: its exit code or signal. */
  readonly ended: () => string | undefined
  readonly base: string
  readonly port: number
  readonly stop: () => Promise<void>
}

/**
 * `npm start` in a process group of its own, with exactly this environment (plus PATH and HOME),
 * in this repository or in another checkout (`cwd`, e.g. an older commit to compare with).
 */
export const npmStart = async (
  env: Record<string, string>,
  startTimeoutMs: number,
  cwd: string = projectRoot
): Promise<Started> => {
  const port = await freePort()
  const child = spawn("npm", ["start"], {
    cwd,
    detached: true,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      // Loopback only: the machine is shared. Otherwise the default a self-hoster runs.
      HOST: "127.0.0.1",
      npm_config_update_notifier: "false",
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  let ended: string | undefined
  let stopping = false
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code, signal) => {
      if (!stopping) ended = `exit code ${code}, signal ${signal}`
      resolve(code)
    })
  )
  const group = -child.pid!
  const groupAlive = () => {
    try {
      process.kill(group, 0)
      return true
    } catch {
      return false
    }
  }
  // The whole process group: npm, and whatever it started (a service left behind by a dead npm too).
  const stop = async () => {
    stopping = true
    if (!groupAlive()) return
    process.kill(group, "SIGTERM")
    const deadline = performance.now() + 30_000
    while (groupAlive() && performance.now() < deadline) await sleep(200)
    if (groupAlive()) {
      console.error("npm start did not stop within 30 s of SIGTERM: killing its process group")
      process.kill(group, "SIGKILL")
    }
    await Promise.race([exited, sleep(5000)])
  }
  const base = `http://127.0.0.1:${port}`
  try {
    await waitFor200(`${base}/readyz`, startTimeoutMs, { output: () => output })
  } catch (error) {
    await stop()
    throw error
  }
  return { child, output: () => output, ended: () => ended, base, port, stop }
}

/** POSTs JSON; a 503 (the database away a moment) is tried again twice, a second apart. */
export const request = async (
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
  attempts = 3
): Promise<Response> => {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })
  if (response.status === 503 && attempts > 1) {
    await response.text()
    await sleep(1000)
    return request(base, path, body, headers, attempts - 1)
  }
  if (response.status !== 200 && response.status !== 201) {
    throw new Error(`POST ${path}: ${response.status} ${await response.text()}`)
  }
  return response
}

/** Signs in with the password the first start printed, and makes an API key with the session. */
export const apiKeyOf = async (service: Started) => {
  const printed = /Sign in as (\S+) with password (\S+) /.exec(service.output())
  if (!printed) throw new Error(`the first start printed no password:\n${service.output()}`)
  const signIn = await request(service.base, "/api/v1/auth/signin", {
    email: printed[1],
    password: printed[2]
  }, {})
  const cookie = signIn.headers.getSetCookie()[0]!.split(";")[0]!
  const created = await request(service.base, "/api/v1/admin/api-keys", { name: "bench" }, { cookie })
  return ((await created.json()) as { key: string }).key
}
