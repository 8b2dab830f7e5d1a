/**
 * The notes of the OpenAPI document (served at /api/v1/openapi.json, shown at /docs): a group's
 * description becomes its tag's, an endpoint's summary and description its operation's.
 * Paragraphs are joined as Markdown paragraphs, which Swagger UI renders.
 */
import { OpenApi } from "effect/http-api"

/** Annotations of an endpoint: a short summary and a description of one or more paragraphs. */
export const endpointDocs = (summary: string, ...paragraphs: ReadonlyArray<string>) =>
  OpenApi.annotations({ summary, description: paragraphs.join("\n\n") })

/** Annotations of a group (an OpenAPI tag): its description. */
export const groupDocs = (...paragraphs: ReadonlyArray<string>) =>
  OpenApi.annotations({ description: paragraphs.join("\n\n") })

/** The paragraph every paged list's description ends with. */
export const pagedList = (bounds: { readonly fallback: number; readonly max: number }) =>
  `Paged: up to \`limit\` items (1–${bounds.max}, default ${bounds.fallback}); when more follow, the answer's ` +
  "`Link: <…>; rel=\"next\"` header gives the next page's address (its `cursor`). Pages follow the order above " +
  "and never repeat or skip an item that existed throughout, whatever is added or removed meanwhile. A cursor " +
  "from another list, or altered, is 400."
