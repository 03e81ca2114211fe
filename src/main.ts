#!/usr/bin/env bun
import { runMain } from "citty";
import { mainCommand } from "./cli/main-command.ts";

void runMain(mainCommand);
