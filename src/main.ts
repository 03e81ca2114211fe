#!/usr/bin/env bun
import { runMain } from "citty";
import { mainCommand } from "./cli/main-command.ts";

// No top-level await: the --bytecode build is CommonJS.
void runMain(mainCommand);
