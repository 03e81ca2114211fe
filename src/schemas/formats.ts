import { FormatRegistry } from "@sinclair/typebox";

// TypeBox checks no string format until told how; register the ones our schemas use.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

if (!FormatRegistry.Has("date-time")) {
  FormatRegistry.Set("date-time", (value) => RFC3339.test(value) && !Number.isNaN(Date.parse(value)));
}
