/** `status-page api-key create --name NAME [--expires ISO]`, on the database itself (./Local.ts). */
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"

import { CreateApiKey } from "../domain/Auth.js"
import { ApiKeys } from "../services/auth/ApiKeys.js"
import { UsageError } from "./CliFailure.js"
import { LocalServices } from "./Local.js"
import { body } from "./Remote.js"

const create = Command.make("create", {
  name: Flag.String("name").pipe(Flag.withDescription("What the key is for (1–200 characters)")),
  expires: Flag.String("expires").pipe(
    Flag.optional,
    Flag.withDescription("ISO 8601 UTC, e.g. 2027-01-01T00:00:00Z (default: never)")
  )
}, (options) =>
  Effect.gen(function*() {
    const input = yield* body(CreateApiKey, { name: options.name, expiresAt: Option.getOrUndefined(options.expires) })
    const created = yield* Effect.flatMap(ApiKeys, (keys) => keys.create(input, null)).pipe(
      Effect.catchTag("BadRequest", (error) => new UsageError({ message: error.message }))
    )
    yield* Console.error(
      `Created API key "${created.name}" (${created.prefix}…, id ${created.id}). It is shown only now:`
    )
    // The key alone on stdout, for `KEY=$(status-page api-key create …)`.
    yield* Console.log(created.key)
  })).pipe(
    Command.withDescription("Create an API key in the configured database; prints the key once"),
    Command.provide(LocalServices)
  )

export const ApiKeyCommand = Command.make("api-key").pipe(
  Command.withDescription("API keys, on the configured database (stop an embedded-database service first)"),
  Command.withSubcommands([create])
)
