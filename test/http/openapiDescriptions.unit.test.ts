/**
 * The OpenAPI document (/api/v1/openapi.json, shown at /docs) carries the per-endpoint notes:
 * every group (tag) has a description, every operation a summary and a description. Built from
 * the API declaration alone, as the server builds it: no database, no server.
 */
import { describe, expect, it } from "@effect/vitest"
import { OpenApi } from "effect/http-api"

import { Api } from "../../src/api/Api.js"

const spec = OpenApi.fromApi(Api)

const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
  methods.flatMap((method) => {
    const operation = item[method]
    return operation === undefined ? [] : [{ name: `${method.toUpperCase()} ${path}`, operation }]
  })
)

const filled = (text: string | undefined) => typeof text === "string" && text.trim().length > 0

/** Every text of the document a reader sees. */
const texts = [
  spec.info.description ?? "",
  ...spec.tags.map((tag) => tag.description ?? ""),
  ...operations.flatMap(({ operation }) => [operation.summary ?? "", operation.description ?? ""]),
  ...Object.values(spec.components.securitySchemes).map((scheme) => scheme.description ?? "")
]

describe("OpenAPI descriptions", () => {
  it("covers every operation of the API", () => {
    // Sanity: the walk above finds the operations (52 when this test was written).
    expect(operations.length).toBeGreaterThanOrEqual(50)
  })

  it("gives every operation a non-empty summary and description", () => {
    const missing = operations.flatMap(({ name, operation }) => [
      ...(filled(operation.summary) ? [] : [`${name}: summary`]),
      ...(filled(operation.description) ? [] : [`${name}: description`])
    ])
    expect(missing).toEqual([])
  })

  it("keeps summaries short and distinct from the description", () => {
    const long = operations.filter(({ operation }) => (operation.summary ?? "").length > 60).map(({ name }) => name)
    expect(long).toEqual([])
    const repeated = operations.filter(({ operation }) => operation.summary === operation.description).map(({ name }) =>
      name
    )
    expect(repeated).toEqual([])
  })

  it("gives every tag (group) a non-empty description, and every operation a declared tag", () => {
    expect(spec.tags.length).toBeGreaterThan(0)
    expect(spec.tags.filter((tag) => !filled(tag.description)).map((tag) => tag.name)).toEqual([])
    const tagNames = new Set(spec.tags.map((tag) => tag.name))
    const untagged = operations.filter(({ operation }) => !operation.tags.some((tag) => tagNames.has(tag)))
    expect(untagged.map(({ name }) => name)).toEqual([])
  })

  it("describes the API and both security schemes", () => {
    expect(filled(spec.info.description)).toBe(true)
    const schemes = Object.entries(spec.components.securitySchemes)
    expect(schemes.map(([name]) => name).sort()).toEqual(["apiKey", "session"])
    expect(schemes.filter(([, scheme]) => !filled(scheme.description)).map(([name]) => name)).toEqual([])
  })

  it("refers to no internal planning document", () => {
    const leaks = texts.filter((text) => /CONTRACT\.md|DESIGN\.md|\.\.\/shared/.test(text))
    expect(leaks).toEqual([])
  })
})
