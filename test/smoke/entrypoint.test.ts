/**
 * Boots the real entry point with no DATABASE_URL (the embedded PGlite default), talks to it
 * over HTTP, stops it with SIGTERM and starts it again on the same data directory.
 */
import { describe, expect, it } from "vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, startService, waitFor200 } from "../support/ChildProcess.js"

describe("npm start on the embedded default", () => {
  it("serves the summary, keeps data across a restart and stops cleanly on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "sps-smoke-"))
    try {
      const port = await freePort()
      const base = `http://127.0.0.1:${port}`
      const env = { PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir }

      const first = startService("src/main.ts", env)
      const summary = await waitFor200(`${base}/api/v1/status`, 60_000, first)
      expect(await summary.json()).toEqual({
        status: "operational",
        components: [],
        activeIncidents: [],
        upcomingMaintenance: []
      })
      const created = await fetch(`${base}/api/v1/admin/components`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Checkout", status: "degraded" })
      })
      expect(created.status).toBe(201)
      first.child.kill("SIGTERM")
      expect(await first.exited).toBe(0)

      const second = startService("src/main.ts", env)
      const again = await waitFor200(`${base}/api/v1/status`, 60_000, second)
      const body = await again.json()
      expect(body.status).toBe("degraded")
      expect(body.components.map((c: { name: string }) => c.name)).toEqual(["Checkout"])
      second.child.kill("SIGTERM")
      expect(await second.exited).toBe(0)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)
})
