import { describe, expect, test } from "bun:test";
import { ANSWER_PREFERENCE, chooseEncoding as choose, FILE_PREFERENCE } from "../../src/http/content-encoding.ts";

const chooseEncoding = (acceptEncoding: string | null) => choose(acceptEncoding, FILE_PREFERENCE);

describe("the encoding an answer is sent in", () => {
  test("brotli before gzip when both are taken alike; q-values decide otherwise; q=0 refuses", () => {
    expect(chooseEncoding("gzip, deflate, br, zstd")).toBe("br");
    expect(chooseEncoding("gzip")).toBe("gzip");
    expect(chooseEncoding("br;q=0.5, gzip;q=1.0")).toBe("gzip");
    expect(chooseEncoding("br;q=0, gzip")).toBe("gzip");
    expect(chooseEncoding("*")).toBe("br");
    expect(chooseEncoding("*;q=0.1, br;q=0")).toBe("gzip");
    // Answers, compressed each time, prefer the cheaper zstd, then gzip, when taken alike.
    expect(choose("gzip, deflate, br, zstd", ANSWER_PREFERENCE)).toBe("zstd");
    expect(choose("gzip, deflate, br", ANSWER_PREFERENCE)).toBe("gzip");
    expect(choose("zstd;q=0.5, gzip", ANSWER_PREFERENCE)).toBe("gzip");
    expect(choose("br", ANSWER_PREFERENCE)).toBe("br");
  });

  test("none named, none taken, or no header: the bytes as they are", () => {
    expect(chooseEncoding(null)).toBeUndefined();
    expect(chooseEncoding("")).toBeUndefined();
    expect(chooseEncoding("identity")).toBeUndefined();
    expect(chooseEncoding("deflate, zstd")).toBeUndefined();
    expect(chooseEncoding("br;q=0, gzip;q=0")).toBeUndefined();
  });
});
