/**
 * At least once across a crash: the real entry point runs as a child process on a fresh
 * PostgreSQL database, events are committed, the process is SIGKILLed while deliveries are in
 * flight and events wait in the outbox, and after a restart every event reaches every webhook,
 * a redelivery with the `webhook-id` of the interrupted attempt.
 */
import { Effect, Exit, Scope } from "effect"
import { describe, expect, it } from "vitest"

import { listeningUrl, runCommand, startService, waitFor200 } from "../../support/ChildProcess.js"
import type { Answer, ReceivedRequest } from "../../support/Receiver.js"
import { receiver } from "../../support/Receiver.js"
import { freshDatabaseUrl } from "../../support/TestDatabase.js"

const waitUntil = async (done: () => boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("dispatcher crash", () => {
  it("delivers every committed event at least once after SIGKILL and restart, with stable delivery ids", async () => {
    const scope = Effect.runSync(Scope.make())
    const run = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) => Effect.runPromise(Scope.provide(effect, scope))
    try {
      const { url } = await run(freshDatabaseUrl)
      // Before the crash requests hang (in flight when the process dies); afterwards they succeed.
      let crashed = false
      const answer: Answer = (_, response) => {
        if (!crashed) return
        response.writeHead(200)
        response.end()
      }
      const targets = [await run(receiver(answer)), await run(receiver(answer))]
      // Each start binds any free port (the webhooks' links name PUBLIC_URL, not it) and logs it.
      let base = ""
      const env = {
        DATABASE_URL: url,
        PORT: "0",
        HOST: "127.0.0.1",
        PUBLIC_URL: "https://status.example.test"
      }

      const key = await runCommand("src/cli/main.ts", ["api-key", "create", "--name", "kill-test"], env)
      expect(key.code, key.stderr).toBe(0)
      const post = async (path: string, body: unknown) => {
        const response = await fetch(`${base}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${key.stdout.trim()}` },
          body: JSON.stringify(body)
        })
        expect(response.status).toBeLessThan(300)
        return (await response.json()) as { id: string }
      }

      const first = startService("src/main.ts", env, { directNode: true })
      base = await listeningUrl(first, 60_000)
      await waitFor200(`${base}/readyz`, 60_000, first)
      for (const target of targets) {
        await post("/api/v1/admin/webhooks", { name: "crash", url: target.url, type: "generic" })
      }
      const incidents: Array<string> = []
      for (let i = 0; i < 5; i++) {
        incidents.push((await post("/api/v1/admin/incidents", { title: `Before ${i}`, message: "m" })).id)
      }
      // Deliveries are in flight (the receivers hold them) ...
      await waitUntil(() => targets.every((target) => target.received.length >= 1), 10_000, "deliveries in flight")
      // ... and more events are committed right before the kill, most of them not handed over yet.
      for (let i = 0; i < 5; i++) {
        incidents.push((await post("/api/v1/admin/incidents", { title: `Late ${i}`, message: "m" })).id)
      }
      first.child.kill("SIGKILL")
      await first.exited
      expect(first.child.signalCode).toBe("SIGKILL")
      const inFlight = targets.map((target) => target.received.slice())
      crashed = true

      const second = startService("src/main.ts", env, { directNode: true })
      try {
        base = await listeningUrl(second, 60_000)
        await waitFor200(`${base}/readyz`, 60_000, second)
        const incidentOf = (request: ReceivedRequest) => JSON.parse(request.body).data.id as string
        const deliveredAll = () =>
          targets.every((target) =>
            incidents.every((id) =>
              target.received.some((request) =>
                incidentOf(request) === id && !inFlight[targets.indexOf(target)]!.includes(request)
              )
            )
          )
        // Claims of the dead process run out within about 15 s (a delivery's lease).
        await waitUntil(deliveredAll, 45_000, `every event delivered\n${second.output()}`)

        for (const [index, target] of targets.entries()) {
          const byIncident = new Map<string, Array<ReceivedRequest>>()
          for (const request of target.received) {
            byIncident.set(incidentOf(request), [...(byIncident.get(incidentOf(request)) ?? []), request])
          }
          expect([...byIncident.keys()].sort()).toEqual([...incidents].sort())
          // Each (event, webhook) keeps one delivery id across the crash.
          for (const requests of byIncident.values()) {
            expect(new Set(requests.map((request) => request.headers["webhook-id"])).size).toBe(1)
          }
          // The requests interrupted by the kill were delivered again, under the same id.
          const interrupted = inFlight[index]!
          expect(interrupted.length).toBeGreaterThanOrEqual(1)
          for (const request of interrupted) {
            const again = target.received.filter((later) =>
              !interrupted.includes(later) && later.headers["webhook-id"] === request.headers["webhook-id"]
            )
            expect(again.length).toBeGreaterThanOrEqual(1)
          }
        }
      } finally {
        second.child.kill("SIGTERM")
        await second.exited
      }
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 120_000)
})
