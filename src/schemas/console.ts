import { Type, type Static } from "@sinclair/typebox";

/** What `POST /v1/console/links` takes: the device a link is for, if any. */
export const ConsoleLinkBody = Type.Object({
  deviceName: Type.Optional(
    Type.String({ minLength: 1, maxLength: 60, description: "The device the link is for; the token it signs in with is named after it." }),
  ),
});

/** A one-time console sign-in link, on every address the server is reached at. */
export const ConsoleLink = Type.Object(
  {
    code: Type.String(),
    expiresAt: Type.String({ format: "date-time" }),
    urls: Type.Array(Type.String(), {
      description:
        "The link on each address the server is reached at from elsewhere, best first: publicUrl, the TLS certificate's names, each network interface's address (never 0.0.0.0).",
    }),
  },
  { $id: "ConsoleLink" },
);
export type ConsoleLink = Static<typeof ConsoleLink>;
