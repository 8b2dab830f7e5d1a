/**
 * Boots what `npm start` runs (the server bundle of scripts/buildServer.ts, started by plain
 * node with the start script's flags) with no DATABASE_URL (the embedded PGlite default), talks to it over HTTP, stops it with
 * SIGTERM, uses the CLI on the same data, and starts it again from the sources.
 */
import { randomUUID } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { describe, expect, it } from "vitest"

import { listeningUrl, projectRoot, runCommand, startService, waitFor200 } from "../support/ChildProcess.js"

/** The pids of `pid`'s child processes, from /proc. */
const childrenOf = (pid: number) =>
  readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).filter((entry) => {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid
    } catch {
      return false // gone meanwhile
    }
  })

/** The node flags of package.json's start script: the smoke test runs the bundle as `npm start` does. */
const startFlags = (JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")).scripts.start as string)
  .split(" ").filter((part) => part.startsWith("--"))

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body)
})

describe("npm start on the embedded default", () => {
  it("serves, prints the first administrator's password once, keeps data, and the CLI manages access", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "sps-smoke-"))
    const bundle = `dist/smoke-${randomUUID()}`
    try {
      const build = await runCommand("scripts/buildServer.ts", ["--outdir", bundle], {})
      expect(build.code, build.stderr).toBe(0)
      // ASCII only: one character beyond it makes Node hand V8 a module's whole source as two
      // bytes a character (scripts/buildServer.ts escapes them).
      for (const file of readdirSync(join(projectRoot, bundle)).filter((name) => name.endsWith(".mjs"))) {
        expect(/[^\x00-\x7f]/.test(readFileSync(join(projectRoot, bundle, file), "utf8")), file).toBe(false)
      }
      const env = {
        // Any free port, each start its own: the test reads it from the log.
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        // Left out the way docker-compose.yml passes a variable the operator did not set
        // (`${VAR:-}`): set to nothing, which counts as unset.
        DATABASE_URL: "",
        ADMIN_EMAIL: "",
        ADMIN_PASSWORD: "",
        SMTP_URL: ""
      }

      const first = startService(`${bundle}/main.mjs`, env, { plainNode: true, nodeFlags: startFlags })
      let base = await listeningUrl(first, 60_000)
      // Ready once the whole API is up (the public fast path may answer a little earlier).
      await waitFor200(`${base}/readyz`, 60_000, first)
      // One process: the database files were made by a child that has exited, and the dashboard
      // is the prebuilt one, with no esbuild process behind it.
      expect(childrenOf(first.child.pid!)).toEqual([])
      const dashboard = await fetch(`${base}/admin/app.js`)
      expect(dashboard.status).toBe(200)
      // Byte for byte; Buffer.equals, as toEqual walks 700 kB a byte at a time for seconds, long
      // enough on a busy machine for the server to close the idle keep-alive connection under the next fetch.
      const served = Buffer.from(await dashboard.arrayBuffer())
      expect(served.equals(readFileSync(join(projectRoot, bundle, "dashboard/app.js"))), "the prebuilt dashboard")
        .toBe(true)
      // The page's footer separator ("·", escaped in the bundle) reaches the reader as itself.
      expect(await (await fetch(`${base}/`)).text()).toContain("</a> \u00b7 <a href=")
      const summary = await fetch(`${base}/api/v1/status`)
      expect(await summary.json()).toEqual({
        status: "operational",
        components: [],
        activeIncidents: [],
        upcomingMaintenance: [],
        groups: []
      })
      const printed = /Sign in as (\S+) with password (\S+) /.exec(first.output())
      expect(printed?.[1]).toBe("admin@localhost")
      const signIn = await fetch(`${base}/api/v1/auth/signin`, json({ email: printed![1], password: printed![2] }))
      expect(signIn.status).toBe(200)
      const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!
      expect((await fetch(`${base}/api/v1/admin/components`, json({ name: "Checkout" }))).status).toBe(401)
      const created = await fetch(
        `${base}/api/v1/admin/components`,
        json({ name: "Checkout", status: "degraded" }, { cookie })
      )
      expect(created.status).toBe(201)
      first.child.kill("SIGTERM")
      expect(await first.exited).toBe(0)

      // The embedded database admits one process at a time: the CLI runs while the service is down.
      const key = await runCommand("src/cli/main.ts", ["api-key", "create", "--name", "smoke"], env)
      expect(key.code, key.stderr).toBe(0)
      expect(key.stdout.trim()).toMatch(/^svc_[A-Za-z0-9]{32}$/)
      const reset = await runCommand(
        "src/cli/main.ts",
        ["admin", "reset-password", "--email", "admin@localhost", "--password-stdin"],
        env,
        { stdin: "a brand new passphrase\n" }
      )
      expect(reset.code, reset.stderr).toBe(0)
      const unknown = await runCommand(
        "src/cli/main.ts",
        ["admin", "reset-password", "--email", "nobody@example.com"],
        env
      )
      expect(unknown.code).toBe(2)
      expect((await runCommand("src/cli/main.ts", ["api-key", "create"], env)).code).toBe(2)

      const second = startService("src/main.ts", env)
      base = await listeningUrl(second, 60_000)
      const again = await waitFor200(`${base}/api/v1/status`, 60_000, second)
      const body = await again.json()
      expect(body.status).toBe("degraded")
      expect(body.components.map((c: { name: string }) => c.name)).toEqual(["Checkout"])
      expect(second.output()).not.toContain("with password")

      const authorization = `Bearer ${key.stdout.trim()}`
      expect((await fetch(`${base}/api/v1/admin/components`, { headers: { authorization } })).status).toBe(200)
      expect((await fetch(`${base}/api/v1/admin/components`, { headers: { cookie } })).status).toBe(401)
      const oldPassword = await fetch(
        `${base}/api/v1/auth/signin`,
        json({ email: "admin@localhost", password: printed![2] })
      )
      expect(oldPassword.status).toBe(401)
      const newPassword = await fetch(
        `${base}/api/v1/auth/signin`,
        json({ email: "admin@localhost", password: "a brand new passphrase" })
      )
      expect(newPassword.status).toBe(200)
      second.child.kill("SIGTERM")
      expect(await second.exited).toBe(0)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
      rmSync(join(projectRoot, bundle), { recursive: true, force: true })
    }
  }, 180_000)
})
