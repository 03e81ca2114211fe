import { ConsoleAssets } from "../console/console-assets.ts";
import { ConsoleLinks } from "../console/console-links.ts";
import { consoleRoutes } from "../http/routes/console-routes.ts";
import { defineModule } from "./module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

/** The console: the web client at `/`, bundled into the binary, and its sign-in by link. */
export const consoleModule = defineModule({
  name: "console",
  features: MODULE_FEATURES.console,
  eventKinds: {},
  create: ({ tokens, clock, server }) => {
    const links = new ConsoleLinks(tokens, clock, server.reachableUrls);
    return { links, routes: consoleRoutes(new ConsoleAssets(), links) };
  },
});
