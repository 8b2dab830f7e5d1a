/**
 * The API of an app of its own ("acme"): one endpoint of its own, and the status page's groups
 * added with `addHttpApi`, which brings their errors and middleware. Its typed client
 * (`HttpApiClient.make(AcmeApi)`) therefore calls both.
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { Api } from "../../src/api/index.js"

export class Greeting extends Schema.Class<Greeting>("Greeting")({ greeting: Schema.String }) {}

export class AcmeGroup extends HttpApiGroup.make("acme").add(
  HttpApiEndpoint.get("hello", "/acme/hello", { success: Greeting })
) {}

export class AcmeApi extends HttpApi.make("acme").add(AcmeGroup).addHttpApi(Api) {}
