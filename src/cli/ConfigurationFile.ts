/**
 * The configuration file of `status-page export` and `apply -f` (docs/configuration-as-code.md):
 * the configuration document as YAML, with `${VARIABLE}` references read from the environment
 * when it is applied, and the plan an apply or import prints.
 */
import { Effect, Schema } from "effect"
import YAML from "yaml"

import { ConfigurationDocument, type PlanStep } from "../domain/Configuration.js"
import { refusedInput, UsageError } from "./CliFailure.js"

const encodeDocument = Schema.encodeEffect(ConfigurationDocument)
const decodeDocument = Schema.decodeUnknownEffect(ConfigurationDocument, { errors: "all" })

/**
 * The document as YAML. The same setup gives the same file, whichever instance wrote it (no
 * address or time in it), so a file kept in git changes only with the setup.
 */
export const toYaml = (document: ConfigurationDocument) =>
  Effect.map(
    encodeDocument(document),
    (encoded) =>
      `# Written by \`status-page export\`. Secrets are \${VARIABLE} references: set them when you apply.\n` +
      YAML.stringify(encoded, { lineWidth: 0 })
  )

const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g

/** Where a reference may be left unset: a secret the service keeps (a header value, a password, a push token, an on-call key). */
const isSecret = (path: ReadonlyArray<string | number>) => {
  const [kind, , field] = path
  return (kind === "monitors" && (field === "password" || field === "pushToken" || field === "headers")) ||
    (kind === "pages" && field === "password") || (kind === "webhooks" && field === "integrationKey")
}

/**
 * Replaces every `${VARIABLE}` in the file's strings with the variable's value. An unset one in
 * a secret is sent as the reference, which keeps the stored secret (an error when there is none
 * yet); anywhere else it is an error naming every such variable.
 */
export const substitute = (value: unknown, environment: Record<string, string | undefined>) => {
  const missing = new Set<string>()
  const walk = (node: unknown, path: Array<string | number>): unknown => {
    if (typeof node === "string") {
      const unset = [...node.matchAll(reference)].map((match) => match[1]!).filter((name) =>
        environment[name] === undefined
      )
      if (unset.length === 0) return node.replace(reference, (_, name: string) => environment[name]!)
      // Sent as it is: the service keeps the stored secret for a reference it is given.
      if (isSecret(path)) return node
      unset.forEach((name) => missing.add(name))
      return node
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]))
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...path, key])]))
    }
    return node
  }
  const result = walk(value, [])
  return missing.size === 0
    ? Effect.succeed(result)
    : Effect.fail(new UsageError({ message: `Set ${[...missing].sort().join(", ")}: the file refers to them` }))
}

/** Reads a configuration file: YAML (JSON is YAML too), references substituted, checked with the API's schema. */
export const readConfiguration = (text: string, environment: Record<string, string | undefined>) =>
  Effect.gen(function*() {
    const parsed = yield* Effect.try({
      // No custom tags, and few aliases: a file cannot make the parser do much work or run code.
      try: () => YAML.parse(text, { schema: "core", maxAliasCount: 100, prettyErrors: true }) as unknown,
      catch: (error) => new UsageError({ message: `The file is not YAML: ${(error as Error).message}` })
    })
    const substituted = yield* substitute(parsed, environment)
    return yield* decodeDocument(substituted).pipe(Effect.mapError(refusedInput))
  })

const sign: Record<PlanStep["action"], string> = { create: "+", update: "~", delete: "-", unchanged: "=" }

/** The plan for people: one line per change, unchanged entries counted; secrets shown once. */
export const planLines = (plan: ReadonlyArray<PlanStep>, applied: boolean) => {
  const lines = plan.filter((step) => step.action !== "unchanged").map((step) =>
    `${sign[step.action]} ${step.kind} ${step.key}${step.fields === undefined ? "" : ` (${step.fields.join(", ")})`}` +
    (step.secret === undefined
      ? ""
      : step.kind === "webhook"
      ? `\n    signing secret, shown once: ${step.secret}`
      : `\n    push token, shown once: ${step.secret}`)
  )
  const count = (action: PlanStep["action"]) => plan.filter((step) => step.action === action).length
  const summary = applied
    ? `Applied: ${count("create")} created, ${count("update")} updated, ${count("delete")} deleted, ` +
      `${count("unchanged")} unchanged.`
    : `Plan: ${count("create")} to create, ${count("update")} to update, ${count("delete")} to delete, ` +
      `${count("unchanged")} unchanged.`
  return [...lines, summary].join("\n")
}
