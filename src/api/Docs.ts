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
