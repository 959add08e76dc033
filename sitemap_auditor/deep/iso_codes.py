"""The codes hreflang takes (Google: a language in ISO 639-1, a region in ISO 3166-1 alpha-2),
one table each, from Debian's iso-codes 4.15 (the alpha_2 of iso_639-2.json and iso_3166-1.json).
Languages are spelled lower case, regions upper case, as the standards spell them."""

from __future__ import annotations

__all__ = ["LANGUAGES", "REGIONS", "SUGGESTED"]

# ISO 639-1: the two-letter languages. Then the codes ISO withdrew that browsers and Google
# still read as their successors (iw he, in id, ji yi, jw jv, mo ro, sh sr-Latn): no finding.
_LANGUAGES = (
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu "
    "cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi "
    "ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks "
    "ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl "
    "nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl "
    "sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve "
    "vi vo wa wo xh yi yo za zh zu "
    "iw in ji jw mo sh"
)
LANGUAGES = frozenset(_LANGUAGES.split())

# ISO 3166-1 alpha-2: the countries. Then every other two-letter region of the language
# subtag registry, which BCP 47 tags may use: EU and EZ (the European Union, the euro area),
# UN, the codes ISO reserves (AC, CP, DG, EA, IC, TA: es-IC is the Canary Islands' Spanish), the
# deprecated ones (AN, BU, CS, DD, FX, NT, SU, TP, YD, YU, ZR), and the private-use ones (AA,
# QM to QZ, XA to XZ, ZZ; XK is Kosovo's).
_REGIONS = (
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO "
    "BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ "
    "DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP "
    "GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG "
    "KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML "
    "MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE "
    "PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL "
    "SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM "
    "US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW "
    "EU EZ UN AC CP DG EA IC TA AN BU CS DD FX NT SU TP YD YU ZR "
    "AA QM QN QO QP QQ QR QS QT QU QV QW QX QY QZ ZZ "
    "XA XB XC XD XE XF XG XH XI XJ XK XL XM XN XO XP XQ XR XS XT XU XV XW XX XY XZ"
)
REGIONS = frozenset(_REGIONS.split())

# The code meant, for the mistakes Google names as the common ones (a country code given as
# the language, UK for the United Kingdom): what a finding suggests instead.
SUGGESTED = {
    "UK": "GB",
    "jp": "ja",
    "cn": "zh",
    "gr": "el",
    "dk": "da",
    "cz": "cs",
    "vn": "vi",
    "ua": "uk",
    "rs": "sr",
}
