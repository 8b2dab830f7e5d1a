/** `status-page api-key create --name NAME [--expires ISO] [--role ROLE]`, on the database itself (./Local.ts). */
import { Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"

import { CurrentAuditScope, systemScope } from "../domain/Audit.js"
import { CreateApiKey } from "../domain/Auth.js"
import { roles } from "../domain/Role.js"
import { ApiKeys } from "../services/auth/ApiKeys.js"
import { UsageError } from "./CliFailure.js"
import { LocalServices } from "./Local.js"
import { body } from "./Remote.js"

const create = Command.make("create", {
  name: Flag.String("name").pipe(Flag.withDescription("What the key is for (1–200 characters)")),
  expires: Flag.String("expires").pipe(
    Flag.optional,
    Flag.withDescription("ISO 8601 UTC, e.g. 2027-01-01T00:00:00Z (default: never)")
  ),
  role: Flag.Literals("role", roles).pipe(
    Flag.withDefault("owner"),
    Flag.withDescription("What the key may do: owner, admin, editor or viewer (default: owner)")
  )
}, (options) =>
  Effect.gen(function*() {
    const input = yield* body(CreateApiKey, {
      name: options.name,
      expiresAt: Option.getOrUndefined(options.expires),
      role: options.role
    })
    // The operator at the machine holds the database itself: the key may have any role.
    const created = yield* Effect.flatMap(ApiKeys, (keys) => keys.create(input, { userId: null, role: "owner" })).pipe(
      // The audit log names the command line as the key's creator.
      Effect.provideService(CurrentAuditScope, { ...systemScope("cli"), operation: "apiKeys.create" }),
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
