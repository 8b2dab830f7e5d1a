/**
 * Admin automation without the dashboard, on the same services as the API:
 *   npm run cli -- api-key create --name NAME [--expires 2027-01-01T00:00:00Z]
 *   npm run cli -- admin reset-password --email EMAIL [--password-stdin]
 * It opens the configured database (DATABASE_URL, or the embedded one under DATA_DIR, which
 * only one process may open at a time: stop the service first).
 */
import { randomBytes } from "node:crypto"

import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer, Logger, LogLevel, Schema } from "effect"

import { environment } from "./Config.js"
import { CreateApiKey } from "./domain/Auth.js"
import { Database } from "./persistence/Database.js"
import { Administrators } from "./services/auth/Administrators.js"
import { ApiKeys } from "./services/auth/ApiKeys.js"

const usage = `Usage:
  npm run cli -- api-key create --name NAME [--expires ISO-8601-UTC]
  npm run cli -- admin reset-password --email EMAIL [--password-stdin]`

class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { message: Schema.String }) {}

const option = (args: ReadonlyArray<string>, name: string) => {
  const index = args.indexOf(name)
  return index >= 0 && index + 1 < args.length ? args[index + 1] : undefined
}

const readStdin = Effect.promise(async () => {
  let text = ""
  for await (const chunk of process.stdin) text += chunk
  return text.replace(/\r?\n$/, "")
})

const createApiKey = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const input = yield* Schema.decodeUnknown(CreateApiKey)({
      name: option(args, "--name"),
      expiresAt: option(args, "--expires")
    }).pipe(
      Effect.mapError((error) => new UsageError({ message: error.message }))
    )
    const created = yield* Effect.flatMap(ApiKeys, (keys) => keys.create(input, null))
    yield* Console.error(
      `Created API key "${created.name}" (${created.prefix}…, id ${created.id}). It is shown only now:`
    )
    yield* Console.log(created.key)
  })

const resetPassword = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const email = option(args, "--email")
    if (email === undefined) return yield* new UsageError({ message: "--email is required" })
    const fromStdin = args.includes("--password-stdin")
    const password = fromStdin ? yield* readStdin : randomBytes(18).toString("base64url")
    const found = yield* Effect.flatMap(Administrators, (admins) => admins.resetPassword(email, password))
    if (!found) return yield* new UsageError({ message: `No administrator has the e-mail ${email}` })
    yield* Console.error(`Password of ${email} reset; their sessions have ended.`)
    if (!fromStdin) yield* Console.log(password)
  })

const program = Effect.gen(function*() {
  const args = process.argv.slice(2)
  const command = args.slice(0, 2).join(" ")
  if (command === "api-key create") return yield* createApiKey(args)
  if (command === "admin reset-password") return yield* resetPassword(args)
  return yield* new UsageError({ message: `Unknown command "${command}"` })
}).pipe(
  Effect.catchTags({
    UsageError: (error) =>
      Effect.zipRight(Console.error(`${error.message}\n${usage}`), Effect.sync(() => (process.exitCode = 2))),
    BadRequest: (error) => Effect.zipRight(Console.error(error.message), Effect.sync(() => (process.exitCode = 2)))
  })
)

program.pipe(
  Effect.provide(Layer.mergeAll(ApiKeys.Default, Administrators.Default).pipe(Layer.provide(Database))),
  Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)),
  Effect.withConfigProvider(environment()),
  NodeRuntime.runMain
)
