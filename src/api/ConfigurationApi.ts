import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { ConfigurationDocument, PlanStep } from "../domain/Configuration.js"
import { BadRequest, Conflict, NotFound } from "../domain/Errors.js"
import { ImportBundle } from "../domain/ImportBundle.js"
import { Class } from "../domain/Named.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs } from "./Docs.js"
import { Authentication } from "./Security.js"

export class ApplyConfiguration extends Class<ApplyConfiguration>("ApplyConfiguration")({
  document: ConfigurationDocument,
  /** Delete what the document does not name (default false). */
  prune: Schema.optionalKey(Schema.Boolean),
  /** Plan only: nothing is changed (default false). */
  dryRun: Schema.optionalKey(Schema.Boolean)
}) {}

export class ApplyImport extends Class<ApplyImport>("ApplyImport")({
  bundle: ImportBundle,
  dryRun: Schema.optionalKey(Schema.Boolean)
}) {}

export class ApplyResult extends Class<ApplyResult>("ApplyResult")({
  /** False for a dry run: the plan is what applying would do, and nothing was changed. */
  applied: Schema.Boolean,
  plan: Schema.Array(PlanStep)
}) {}

const planDocs = "Answers `{ applied, plan }`: a step per entry, `{ kind, key, action, fields?, secret? }`, with " +
  "`action` `create`, `update` (with the `fields` that differ), `delete` or `unchanged`; `secret` is shown once, on " +
  "the creation of a generic webhook (its signing secret) or of a push monitor given no token (its URL's token). " +
  "It all happens in one transaction: an entry refused (**400**, **404** or **409**, the message naming it as " +
  "`monitors[checkout-api]: …`) changes nothing. With `dryRun: true` the same is done and rolled back: the plan " +
  "is exactly what applying would do, refusals included."

export class ConfigurationApi extends HttpApiGroup.make("configuration")
  .add(
    HttpApiEndpoint.get("export", "/configuration", { success: ConfigurationDocument })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Export the configuration",
        "Everything set up, as the document `POST /api/v1/admin/configuration` takes (docs/configuration-as-code.md): " +
          "the organization, groups, components, incident templates, monitors, pages, webhooks and the maintenance " +
          "to come. Each entry is called by the key it was applied or imported under, else by its id. Secrets " +
          "(monitors' header values, passwords and push tokens, pages' passwords, on-call keys) are written as " +
          "`${VARIABLE}` references, never as values. Incidents, subscribers and statuses are runtime data, not in it."
      ))
  )
  .add(
    HttpApiEndpoint.post("apply", "/configuration", {
      payload: ApplyConfiguration,
      success: ApplyResult,
      error: [BadRequest, NotFound, Conflict]
    })
      .annotate(RequiredRole, "owner")
      .annotateMerge(endpointDocs(
        "Apply a configuration",
        "Makes the service match `document`: each entry whose key names nothing is created, the others updated " +
          "where they differ (a field left out is left as it is), and with `prune: true` what the document does " +
          "not name is deleted (maintenance cancelled). Applying the same document again changes nothing. A " +
          "secret given as `\"********\"` keeps the stored one. Owner only: it may change the organization.",
        planDocs
      ))
  )
  .add(
    HttpApiEndpoint.post("import", "/imports", {
      payload: ApplyImport,
      success: ApplyResult,
      error: [BadRequest, NotFound, Conflict]
    })
      .annotate(RequiredRole, "owner")
      .annotateMerge(endpointDocs(
        "Import from another tool",
        "What `status-page import uptime-kuma|statuspage` read (docs/migrating.md): its configuration, applied as " +
          "`POST /configuration` would without pruning, then components' statuses, incidents with their timeline " +
          "(as history: nobody is notified) and, when the operator chose to, subscribers (as confirmed). Importing " +
          "again finds each record by its key: what is the same is left alone, an incident gets the entries its " +
          "source added since.",
        planDocs
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin")
  .annotateMerge(groupDocs(
    "Configuration as code and imports (admin; an API key or a session is required, else 401)."
  ))
{}
