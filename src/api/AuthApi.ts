import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Me, SignedIn, SignIn } from "../domain/Auth.js"
import { Forbidden, TooManyRequests, Unauthorized } from "../domain/Errors.js"
import { Authentication } from "./Security.js"

export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("signIn", "/signin")
      .setPayload(SignIn)
      .addSuccess(SignedIn)
      .addError(Unauthorized)
      .addError(TooManyRequests)
  )
  .add(HttpApiEndpoint.post("signOut", "/signout").addSuccess(HttpApiSchema.NoContent).addError(Forbidden))
  .add(HttpApiEndpoint.get("me", "/me").addSuccess(Me).middleware(Authentication))
  .prefix("/api/v1/auth")
{}
