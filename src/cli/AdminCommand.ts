/** `status-page admin reset-password --email EMAIL [--password-stdin]`, on the database itself (./Local.ts). */
import { randomBytes } from "node:crypto"

import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"

import { CurrentAuditScope, systemScope } from "../domain/Audit.js"
import { Administrators } from "../services/auth/Administrators.js"
import { UsageError } from "./CliFailure.js"
import { LocalServices } from "./Local.js"
import { flagSwitch } from "./Remote.js"

const readStdin = Effect.promise(async () => {
  let text = ""
  for await (const chunk of process.stdin) text += chunk
  return text.replace(/\r?\n$/, "")
})

const resetPassword = Command.make("reset-password", {
  email: Flag.String("email").pipe(Flag.withDescription("The administrator's e-mail")),
  passwordStdin: flagSwitch("password-stdin").pipe(
    Flag.withDescription("Read the new password from stdin instead of generating and printing one")
  )
}, ({ email, passwordStdin }) =>
  Effect.gen(function*() {
    const password = passwordStdin ? yield* readStdin : randomBytes(18).toString("base64url")
    const found = yield* Effect.flatMap(Administrators, (admins) => admins.resetPassword(email, password)).pipe(
      // The audit log names the command line as who reset it.
      Effect.provideService(CurrentAuditScope, { ...systemScope("cli"), operation: "auth.resetPassword" }),
      Effect.catchTag("BadRequest", (error) => new UsageError({ message: error.message }))
    )
    if (!found) return yield* new UsageError({ message: `No administrator has the e-mail ${email}` })
    yield* Console.error(`Password of ${email} reset; their sessions have ended.`)
    if (!passwordStdin) yield* Console.log(password)
  })).pipe(
    Command.withDescription("Set an administrator's password and end their sessions"),
    Command.provide(LocalServices)
  )

export const AdminCommand = Command.make("admin").pipe(
  Command.withDescription("Administrators, on the configured database (stop an embedded-database service first)"),
  Command.withSubcommands([resetPassword])
)
