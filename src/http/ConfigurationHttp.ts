import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { cachedConfigurationJsonSchema } from "../api/ConfigurationSchemaApi.js"
import { ConfigurationApply } from "../services/configuration/ConfigurationApply.js"
import { ConfigurationExport } from "../services/configuration/ConfigurationExport.js"
import { Imports } from "../services/configuration/Imports.js"

export const ConfigurationHttp = HttpApiBuilder.group(Api, "configuration", (handlers) =>
  Effect.gen(function*() {
    const exporter = yield* ConfigurationExport
    const configuration = yield* ConfigurationApply
    const imports = yield* Imports
    return handlers
      .handle("export", () => exporter.document())
      .handle("apply", ({ payload }) =>
        configuration.apply(payload.document, { prune: payload.prune ?? false, dryRun: payload.dryRun ?? false }))
      .handle("import", ({ payload }) =>
        imports.apply(payload.bundle, { dryRun: payload.dryRun ?? false }))
  }))

export const ConfigurationSchemaHttp = HttpApiBuilder.group(
  Api,
  "configurationSchema",
  (handlers) => Effect.succeed(handlers.handle("get", () => Effect.sync(cachedConfigurationJsonSchema)))
)
