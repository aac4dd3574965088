// String family: StringNormalizer (ONNX StringNormalizer-10).
// Input X: a string tensor of shape [C] or [1, C]. Attributes: stopwords (strings, default none),
// is_case_sensitive=0 (0 or 1), case_change_action="NONE" ("LOWER", "UPPER" or "NONE"), locale
// (accepted and ignored: tare's case mapping does not depend on a locale).
// Y: X without the elements equal to a stop word (compared after lower-casing both when
// is_case_sensitive=0), then lower- or upper-cased per case_change_action, in X's order; shape
// [C'] or [1, C']. When every element is removed Y is [""] of shape [1] (or [1, 1]), as ONNX says.
// Case mapping (StringCaseMap below, used by the kernel too): UTF-8 text, code
// points mapped one to one for ASCII, Latin-1 letters (U+00C0-U+00DE <-> U+00E0-U+00FE, except
// U+00D7 and U+00F7), Greek (U+0391-U+03A9 <-> U+03B1-U+03C9, except U+03A2) and basic Cyrillic
// (U+0400-U+042F <-> U+0430-U+045F); other code points and bytes that are not valid UTF-8 are
// kept unchanged. Y's length depends on X's data, so X must be known (ctx.Known).
// Errors: X not a string tensor, X of another rank or shape, invalid attribute values.
#include <unordered_set>

#include "runtime/ops/specs.h"
#include "runtime/ops/string_case.h"

namespace tare {

namespace {

/// One code point mapped to lower (upper=false) or upper case, per the table in runtime/ops/string.cc.
uint32_t MapCodePoint(uint32_t c, bool upper) {
  if (upper) {
    if (c >= 'a' && c <= 'z') return c - 32;
    if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 0x20;
    if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 0x20;
    if (c >= 0x430 && c <= 0x44F) return c - 0x20;
    if (c >= 0x450 && c <= 0x45F) return c - 0x50;
  } else {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;
    if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 0x20;
    if (c >= 0x410 && c <= 0x42F) return c + 0x20;
    if (c >= 0x400 && c <= 0x40F) return c + 0x50;
  }
  return c;
}

void AppendUtf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {  // the table maps only code points below U+0800
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace

/// Lower-cases (upper=false) or upper-cases UTF-8 text as described above.
std::string StringCaseMap(const std::string& s, bool upper) {
  std::string out;
  out.reserve(s.size());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      out += static_cast<char>(MapCodePoint(b, upper));
      ++i;
      continue;
    }
    // Only two-byte sequences (U+0080-U+07FF) hold mapped letters; everything else is copied.
    if ((b & 0xE0) == 0xC0 && i + 1 < n && (static_cast<unsigned char>(s[i + 1]) & 0xC0) == 0x80) {
      const uint32_t c = (static_cast<uint32_t>(b & 0x1F) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3F);
      if (c >= 0x80) {  // not an overlong encoding
        AppendUtf8(out, MapCodePoint(c, upper));
        i += 2;
        continue;
      }
    }
    out += s[i];
    ++i;
  }
  return out;
}


Status InferString(InferContext& ctx) {
  TARE_RETURN_IF_ERROR(ctx.ExpectInputs(1, 1));
  const ValueInfo& x = ctx.in[0];
  if (x.kind != ValueKind::kTensor || x.dtype != DType::kString)
    return ctx.Error("input X must be a string tensor, got " + std::string(ValueKindName(x.kind)) + " of " + DTypeName(x.dtype));
  if (!(x.shape.size() == 1 || (x.shape.size() == 2 && x.shape[0] == 1)))
    return ctx.Error("input X must have shape [C] or [1, C], got " + ShapeStr(x.shape));
  TARE_ASSIGN_OR_RETURN(int64_t cs, ctx.node.GetInt("is_case_sensitive", 0));
  if (cs != 0 && cs != 1) return ctx.Error("attribute 'is_case_sensitive' must be 0 or 1, got " + std::to_string(cs));
  TARE_ASSIGN_OR_RETURN(std::string action, ctx.node.GetString("case_change_action", "NONE"));
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    return ctx.Error("attribute 'case_change_action' must be LOWER, UPPER or NONE, got '" + action + "'");
  std::unordered_set<std::string> stop;
  auto it = ctx.node.attrs.find("stopwords");
  if (it != ctx.node.attrs.end()) {
    if (it->second.kind != Attr::Kind::kStrings)
      return ctx.Error(std::string("attribute 'stopwords' must be a list of strings, got ") + AttrKindName(it->second.kind));
    for (const std::string& w : it->second.strings) stop.insert(cs ? w : StringCaseMap(w, false));
  }
  TARE_ASSIGN_OR_RETURN(const Tensor* xv, ctx.Known(0, "X"));
  int64_t kept = 0;
  for (int64_t k = 0; k < xv->numel(); ++k) {
    const std::string& s = xv->as<std::string>()[k];
    const std::string key = cs ? s : StringCaseMap(s, false);
    kept += !stop.count(key);
  }
  const int64_t c = kept ? kept : 1;
  ctx.SetOut(0, DType::kString, x.shape.size() == 1 ? Shape{c} : Shape{1, c});
  return Status::Ok();
}

}  // namespace tare
