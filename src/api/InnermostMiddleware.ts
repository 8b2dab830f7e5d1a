/**
 * Places a middleware innermost on an endpoint: after the group's own (`Authentication`), right
 * around the handler. `endpoint.middleware` and `group.middleware` add a middleware outside the
 * ones already there, where the principal is not known yet and a request without credentials
 * would meet it before its 401. HttpApi has no operation for this, so the endpoint is copied
 * with its middleware set replaced, and the group rebuilt from its endpoints.
 */
import { Context } from "effect"
import { type HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

/** A copy of `endpoint` with `middleware` innermost (moved there if it had it already). */
export const withInnermost = (
  endpoint: HttpApiEndpoint.Top,
  middleware: HttpApiEndpoint.Top["middlewares"] extends ReadonlySet<infer M> ? M : never
) =>
  // `annotateMerge` makes a new endpoint: setting its middleware leaves the original untouched.
  Object.assign(endpoint.annotateMerge(Context.empty()), {
    middlewares: new Set([middleware, ...[...endpoint.middlewares].filter((other) => other !== middleware)])
  })

/** `group` rebuilt with each endpoint replaced by `change(endpoint)`: its identifier, options and annotations kept. */
export const mapEndpoints = (
  group: HttpApiGroup.Top,
  change: (endpoint: HttpApiEndpoint.Top) => HttpApiEndpoint.Top
): HttpApiGroup.Top => {
  const endpoints = Object.values(group.endpoints as unknown as Record<string, HttpApiEndpoint.Top>).map(change)
  const rebuilt = HttpApiGroup.make(group.identifier, { topLevel: group.topLevel }).annotateMerge(group.annotations)
  return (endpoints.length === 0 ? rebuilt : rebuilt.add(...(endpoints as [HttpApiEndpoint.Top]))) as HttpApiGroup.Top
}
