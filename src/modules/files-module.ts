import { UploadedFiles } from "../files/uploaded-files.ts";
import { fileRoutes } from "../http/routes/file-routes.ts";
import { FileRepository } from "../store/file-repository.ts";
import { defineModule } from "./module.ts";
import { MODULE_FEATURES } from "./module-features.ts";

/** Files clients upload to attach to prompts. */
export const filesModule = defineModule({
  name: "files",
  features: MODULE_FEATURES.files,
  eventKinds: {},
  create: ({ store, paths }) => {
    const files = new UploadedFiles({ repository: new FileRepository(store), dir: paths.files });
    return { files, routes: fileRoutes(files) };
  },
});
