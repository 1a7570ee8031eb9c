#!/usr/bin/env bash
# Fails if the code of the `sse2` backend uses any instruction beyond SSE2, or calls an
# intrinsic out of line.
#
# Usage: check-sse2-isa.sh BINARY
#
# BINARY is an optimised x86_64 (or x86) build that contains the `sse2` backend, best a
# test binary of a build pinned to it, so nothing else is compiled in:
#
#   RUSTFLAGS='--cfg chacha_backend="sse2"' CARGO_TARGET_DIR=target/forced-sse2 \
#     cargo test --release -p chacha-backends --test differential --no-run
#   chacha-backends/scripts/check-sse2-isa.sh target/forced-sse2/release/deps/differential-<hash>
#
# What it checks: every function whose demangled name is in `chacha_backends::sse2`. The
# module's four `#[target_feature(enable = "sse2")]` entry points (`xor_sse2`,
# `fill_sse2`, `fill_batch_sse2`, `hchacha_sse2`) are `#[inline(never)]`, so all of its
# SIMD code is inside them (or in other functions of the module); the script requires
# each of the four to be present, so a build where they moved elsewhere cannot pass by
# checking nothing.
#
# The rules, per instruction:
# - no `%ymm`/`%zmm`/mask (`%k0`-`%k7`) operand and no mnemonic starting with `v` (VEX/EVEX);
# - an instruction with an `%xmm` operand must be SSE or SSE2 (allowlist below: anything
#   else, e.g. `pshufb`, `palignr` (SSSE3), `pblendw`, `ptest`, `pmaxud`, `pinsrd`
#   (SSE4.1), `pcmpgtq` (SSE4.2), `aesenc`, is refused);
# - `pextrw` only with a register destination (the memory form is SSE4.1);
# - no general-purpose instruction from a later extension (BMI1/2, ADX, LZCNT, POPCNT,
#   MOVBE, CRC32, ...);
# - no `call` into `core_arch` (an intrinsic left out of line: its feature was missing).
set -euo pipefail

if [[ $# -ne 1 || ! -f $1 ]]; then
    echo "usage: $0 BINARY" >&2
    exit 2
fi
binary=$1
objdump=${OBJDUMP:-objdump}

"$objdump" -d --no-show-raw-insn -C "$binary" | awk '
BEGIN {
    # SSE and SSE2 instructions that take xmm operands (AT&T mnemonics, as objdump prints them).
    n = split("movdqa movdqu movaps movups movapd movupd movd movq movss movsd movlps movhps " \
        "movlpd movhpd movhlps movlhps movntdq movnti movntps movntpd movmskps movmskpd " \
        "pmovmskb maskmovdqu " \
        "paddb paddw paddd paddq paddsb paddsw paddusb paddusw " \
        "psubb psubw psubd psubq psubsb psubsw psubusb psubusw " \
        "pmullw pmulhw pmulhuw pmuludq pmaddwd psadbw pavgb pavgw pminub pmaxub pminsw pmaxsw " \
        "pand pandn por pxor andps andnps orps xorps andpd andnpd orpd xorpd " \
        "psllw pslld psllq psrlw psrld psrlq psraw psrad pslldq psrldq " \
        "pcmpeqb pcmpeqw pcmpeqd pcmpgtb pcmpgtw pcmpgtd packsswb packssdw packuswb " \
        "punpcklbw punpcklwd punpckldq punpcklqdq punpckhbw punpckhwd punpckhdq punpckhqdq " \
        "pshufd pshuflw pshufhw shufps shufpd unpcklps unpckhps unpcklpd unpckhpd pextrw pinsrw " \
        "addps addss addpd addsd subps subss subpd subsd mulps mulss mulpd mulsd " \
        "divps divss divpd divsd minps minss minpd minsd maxps maxss maxpd maxsd " \
        "sqrtps sqrtss sqrtpd sqrtsd rcpps rcpss rsqrtps rsqrtss " \
        "cmpps cmpss cmppd cmpsd comiss ucomiss comisd ucomisd " \
        "cvtdq2ps cvtps2dq cvttps2dq cvtdq2pd cvtpd2dq cvttpd2dq cvtps2pd cvtpd2ps " \
        "cvtsi2ss cvtsi2sd cvtss2si cvtsd2si cvttss2si cvttsd2si cvtss2sd cvtsd2ss " \
        "cvtsi2ssl cvtsi2sdl cvtsi2ssq cvtsi2sdq", sse2, " ")
    for (i = 1; i <= n; i++) ok[sse2[i]] = 1
    # cmpps and friends print with their predicate (cmpltps, cmpeqsd, ...).
    # General-purpose instructions from extensions after the x86-64 baseline.
    m = split("andn bextr blsi blsmsk blsr bzhi pdep pext rorx sarx shlx shrx mulx adcx adox " \
        "lzcnt tzcnt popcnt movbe crc32 crc32b crc32w crc32l crc32q xgetbv rdrand rdseed", later, " ")
    for (i = 1; i <= m; i++) bad_gpr[later[i]] = 1
    infn = 0; bad = 0; found = ""
}
/^[0-9a-f]+ <.*>:$/ {
    name = $0; sub(/^[0-9a-f]+ </, "", name); sub(/>:$/, "", name)
    infn = (name ~ /chacha_backends::sse2::/)
    if (infn) {
        fns++
        if (name ~ /chacha_backends::sse2::xor_sse2/) have["xor_sse2"] = 1
        if (name ~ /chacha_backends::sse2::fill_sse2/) have["fill_sse2"] = 1
        if (name ~ /chacha_backends::sse2::fill_batch_sse2/) have["fill_batch_sse2"] = 1
        if (name ~ /chacha_backends::sse2::hchacha_sse2/) have["hchacha_sse2"] = 1
    }
    next
}
infn && /^ +[0-9a-f]+:\t/ {
    line = $0
    split(line, parts, "\t")
    insn = parts[2]
    mnem = insn; sub(/ .*/, "", mnem)
    if (mnem == "" || mnem == "(bad)") { if (mnem == "(bad)") report("undecodable"); next }
    # Prefixes objdump prints as part of the text.
    if (mnem ~ /^(rep|repz|repnz|lock|notrack|bnd|data16|cs|ds)$/) { rest = insn; sub(/^[^ ]+ +/, "", rest); mnem = rest; sub(/ .*/, "", mnem) }
    insns++
    if (insn ~ /%[yz]mm[0-9]/ || insn ~ /%k[0-7]([^0-9]|$)/) { report("256/512-bit or mask register"); next }
    if (mnem ~ /^v/) { report("VEX/EVEX instruction"); next }
    if (mnem in bad_gpr) { report("general-purpose instruction beyond the baseline"); next }
    if (mnem == "call" && insn ~ /core_arch/) { report("out-of-line intrinsic call"); next }
    if (insn ~ /%xmm[0-9]/) {
        base = mnem
        if (base ~ /^cmp(eq|lt|le|unord|neq|nlt|nle|ord)(ps|ss|pd|sd)$/) base = "cmpps"
        if (!(base in ok)) { report("not SSE/SSE2"); next }
        if (mnem == "pextrw" && insn !~ /,%[re]?[a-z0-9]+$/) { report("pextrw to memory is SSE4.1"); next }
    }
    next
}
function report(why) {
    bad++
    if (bad <= 50) printf "NOT SSE2 (%s) in %s:\n  %s\n", why, name, line
}
END {
    missing = ""
    split("xor_sse2 fill_sse2 fill_batch_sse2 hchacha_sse2", need, " ")
    for (i = 1; i <= 4; i++) if (!(need[i] in have)) missing = missing " " need[i]
    if (missing != "") {
        printf "check-sse2-isa: entry point(s) not found in the binary:%s\n", missing
        exit 1
    }
    if (bad > 0) {
        printf "check-sse2-isa: FAILED, %d instruction(s) beyond SSE2 in %d sse2 function(s)\n", bad, fns
        exit 1
    }
    printf "check-sse2-isa: ok, %d instructions in %d sse2 function(s), all SSE/SSE2 or baseline\n", insns, fns
}
'
