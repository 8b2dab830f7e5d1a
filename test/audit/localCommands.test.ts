/**
 * The command line's local commands (on the database itself) are audited as `system` "cli":
 * `api-key create` and `admin reset-password`, with no client address and no secret.
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"

import { adminEmail, adminVariables } from "../support/Auth.js"
import { runCommand } from "../support/ChildProcess.js"
import { TestDatabaseUrl } from "../support/TestDatabase.js"
import { TestServer } from "../support/TestServer.js"
import { entriesSince, newestId } from "./AuditLog.js"

const cli = (args: ReadonlyArray<string>, stdin?: string) =>
  Effect.flatMap(
    TestDatabaseUrl,
    (url) =>
      Effect.promise(() =>
        runCommand("src/cli/main.ts", args, { DATABASE_URL: url }, {
          directNode: true,
          ...(stdin === undefined ? {} : { stdin })
        })
      )
  )

const byCli = { type: "system", id: null, name: "cli" }

it.layer(TestServer(adminVariables))("audit log of local commands", (it) => {
  it.effect("api-key create and admin reset-password are the command line's entries", () =>
    Effect.gen(function*() {
      const before = yield* newestId
      const created = yield* cli(["api-key", "create", "--name", "pipeline", "--role", "editor"])
      expect(created.code, created.stderr).toBe(0)
      const key = created.stdout.trim()
      const [entry, ...others] = yield* entriesSince(before)
      expect(others).toEqual([])
      expect(entry).toMatchObject({
        operation: "apiKeys.create",
        actor: byCli,
        clientAddress: null,
        target: { type: "apiKey", name: "pipeline" },
        changes: { role: { before: null, after: "editor" } }
      })
      expect(JSON.stringify(entry)).not.toContain(key)

      const password = "a brand new password for ops"
      const reset = yield* cli(["admin", "reset-password", "--email", adminEmail, "--password-stdin"], `${password}\n`)
      expect(reset.code, reset.stderr).toBe(0)
      const [resetEntry, ...more] = yield* entriesSince(entry!.id)
      expect(more).toEqual([])
      expect(resetEntry).toMatchObject({
        operation: "auth.resetPassword",
        actor: byCli,
        clientAddress: null,
        target: { type: "user", name: adminEmail }
      })
      expect(JSON.stringify(resetEntry)).not.toContain(password)
    }), 60_000)
})
