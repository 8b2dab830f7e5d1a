/**
 * The configuration file's JSON Schema (docs/configuration-as-code.md), public so that editors
 * complete and check a file (`# yaml-language-server: $schema=…`, which `export` writes). Made
 * from the document's own schema; the secrets also take a `${VARIABLE}` reference, as files do.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { ConfigurationDocument } from "../domain/Configuration.js"
import { endpointDocs, groupDocs } from "./Docs.js"

const variableReference = {
  type: "string",
  pattern: "^\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}$",
  description: "A reference to an environment variable, read when the file is applied"
}

/** Where a secret may be a `${VARIABLE}`: definition → property. */
const secrets: ReadonlyArray<readonly [string, string]> = [
  ["MonitorEntry", "password"],
  ["WebhookEntry", "integrationKey"]
]

type JsonObject = Record<string, unknown>

/** The JSON Schema (draft 2020-12) of a configuration file. */
export const configurationJsonSchema = (): JsonObject => {
  const document = Schema.toJsonSchemaDocument(ConfigurationDocument)
  const definitions = structuredClone(document.definitions) as Record<string, JsonObject>
  for (const [definition, property] of secrets) {
    const properties = definitions[definition]?.properties as Record<string, JsonObject> | undefined
    const schema = properties?.[property]
    if (properties !== undefined && schema !== undefined) properties[property] = { anyOf: [schema, variableReference] }
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Status page configuration",
    ...(document.schema as JsonObject),
    $defs: definitions
  }
}

let cached: JsonObject | undefined

export class ConfigurationSchemaApi extends HttpApiGroup.make("configurationSchema")
  .add(
    HttpApiEndpoint.get("get", "/api/v1/configuration.schema.json", {
      success: Schema.Record(Schema.String, Schema.Unknown)
    }).annotateMerge(endpointDocs(
      "The configuration file's JSON Schema",
      "The JSON Schema (draft 2020-12) of the file `status-page export` writes and `apply -f` reads, for editors " +
        "to complete and check it. No authentication."
    ))
  )
  .annotateMerge(groupDocs("The configuration file's JSON Schema, public (docs/configuration-as-code.md)."))
{}

/** Built once, on first use. */
export const cachedConfigurationJsonSchema = () => (cached ??= configurationJsonSchema())
