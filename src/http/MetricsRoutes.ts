/**
 * The `route` label of the HTTP metrics: the HttpApi endpoint's path template
 * (`/api/v1/admin/components/:id`), found from the declaration itself, never the raw URL, so
 * the series stay bounded. What is not an API endpoint gets a fixed label.
 */
import { HttpApi } from "effect/http-api"

import { Api } from "../api/Api.js"

/** Path templates by method and number of segments; a `:param` segment matches any one segment. */
const templates = new Map<string, Array<{ readonly path: string; readonly segments: ReadonlyArray<string> }>>()
HttpApi.reflect(Api, {
  onGroup: () => {},
  onEndpoint: ({ endpoint }) => {
    const segments = endpoint.path.split("/")
    const key = `${endpoint.method} ${segments.length}`
    const list = templates.get(key) ?? []
    // Literal paths first: `/incidents/upcoming` wins over `/incidents/:id`, as in the router.
    list.push({ path: endpoint.path, segments })
    list.sort((a, b) =>
      a.segments.filter((s) => s.startsWith(":")).length - b.segments.filter((s) => s.startsWith(":")).length
    )
    templates.set(key, list)
  }
})

const apiTemplate = (method: string, pathname: string) => {
  const segments = pathname.split("/")
  const candidates = templates.get(`${method === "HEAD" ? "GET" : method} ${segments.length}`)
  if (candidates === undefined) return undefined
  for (const candidate of candidates) {
    let i = 0
    for (; i < segments.length; i++) {
      const expected = candidate.segments[i]!
      if (expected !== segments[i] && !(expected.startsWith(":") && segments[i] !== "")) break
    }
    if (i === segments.length) return candidate.path
  }
  return undefined
}

/** Fixed labels for what is served beside the API. */
export const publicRoute = "public"
export const unmatchedRoute = "unmatched"

/** The route label of a request: its endpoint's template, or the area it belongs to. */
export const routeOf = (method: string, url: string, status: number): string => {
  const query = url.indexOf("?")
  const pathname = query === -1 ? url : url.slice(0, query)
  const template = apiTemplate(method, pathname)
  if (template !== undefined) return template
  if (pathname.startsWith("/api/")) return unmatchedRoute
  if (pathname === "/metrics") return "/metrics"
  if (pathname === "/admin" || pathname.startsWith("/admin/")) return "/admin"
  if (pathname === "/docs" || pathname.startsWith("/docs/")) return "/docs"
  return status === 404 || status === 405 ? unmatchedRoute : publicRoute
}
