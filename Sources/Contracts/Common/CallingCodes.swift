/// Which region (ISO 3166 alpha-2) an E.164 number belongs to, by country calling code, for the
/// SMS region policy (contract decision 7). Shared codes: +1 is split by area code (Canada and the
/// Caribbean members of the North American plan; every other area code is the US), +7 by its next
/// digit (6 and 7 are Kazakhstan, the rest Russia). Other shared codes name their principal region
/// (+44 GB, +61 AU, +39 IT, +47 NO, +262 RE, +590 GP, +599 CW), a documented approximation.
public enum CallingCodes {
    /// Calling code (1 to 3 digits, no `+`) → region, for every code but 1 and 7.
    static let byCode: [String: String] = [
        "20": "EG", "27": "ZA", "30": "GR", "31": "NL", "32": "BE", "33": "FR", "34": "ES", "36": "HU",
        "39": "IT", "40": "RO", "41": "CH", "43": "AT", "44": "GB", "45": "DK", "46": "SE", "47": "NO",
        "48": "PL", "49": "DE", "51": "PE", "52": "MX", "53": "CU", "54": "AR", "55": "BR", "56": "CL",
        "57": "CO", "58": "VE", "60": "MY", "61": "AU", "62": "ID", "63": "PH", "64": "NZ", "65": "SG",
        "66": "TH", "81": "JP", "82": "KR", "84": "VN", "86": "CN", "90": "TR", "91": "IN", "92": "PK",
        "93": "AF", "94": "LK", "95": "MM", "98": "IR", "211": "SS", "212": "MA", "213": "DZ", "216": "TN",
        "218": "LY", "220": "GM", "221": "SN", "222": "MR", "223": "ML", "224": "GN", "225": "CI", "226": "BF",
        "227": "NE", "228": "TG", "229": "BJ", "230": "MU", "231": "LR", "232": "SL", "233": "GH", "234": "NG",
        "235": "TD", "236": "CF", "237": "CM", "238": "CV", "239": "ST", "240": "GQ", "241": "GA", "242": "CG",
        "243": "CD", "244": "AO", "245": "GW", "246": "IO", "248": "SC", "249": "SD", "250": "RW", "251": "ET",
        "252": "SO", "253": "DJ", "254": "KE", "255": "TZ", "256": "UG", "257": "BI", "258": "MZ", "260": "ZM",
        "261": "MG", "262": "RE", "263": "ZW", "264": "NA", "265": "MW", "266": "LS", "267": "BW", "268": "SZ",
        "269": "KM", "290": "SH", "291": "ER", "297": "AW", "298": "FO", "299": "GL", "350": "GI", "351": "PT",
        "352": "LU", "353": "IE", "354": "IS", "355": "AL", "356": "MT", "357": "CY", "358": "FI", "359": "BG",
        "370": "LT", "371": "LV", "372": "EE", "373": "MD", "374": "AM", "375": "BY", "376": "AD", "377": "MC",
        "378": "SM", "380": "UA", "381": "RS", "382": "ME", "385": "HR", "386": "SI", "387": "BA", "389": "MK",
        "420": "CZ", "421": "SK", "423": "LI", "500": "FK", "501": "BZ", "502": "GT", "503": "SV", "504": "HN",
        "505": "NI", "506": "CR", "507": "PA", "508": "PM", "509": "HT", "590": "GP", "591": "BO", "592": "GY",
        "593": "EC", "594": "GF", "595": "PY", "596": "MQ", "597": "SR", "598": "UY", "599": "CW", "670": "TL",
        "672": "NF", "673": "BN", "674": "NR", "675": "PG", "676": "TO", "677": "SB", "678": "VU", "679": "FJ",
        "680": "PW", "681": "WF", "682": "CK", "683": "NU", "685": "WS", "686": "KI", "687": "NC", "688": "TV",
        "689": "PF", "690": "TK", "691": "FM", "692": "MH", "850": "KP", "852": "HK", "853": "MO", "855": "KH",
        "856": "LA", "880": "BD", "886": "TW", "960": "MV", "961": "LB", "962": "JO", "963": "SY", "964": "IQ",
        "965": "KW", "966": "SA", "967": "YE", "968": "OM", "970": "PS", "971": "AE", "972": "IL", "973": "BH",
        "974": "QA", "975": "BT", "976": "MN", "977": "NP", "992": "TJ", "993": "TM", "994": "AZ", "995": "GE",
        "996": "KG", "998": "UZ",
    ]

    /// North American area codes outside the US.
    static let northAmerica: [String: String] = [
        "204": "CA", "226": "CA", "236": "CA", "249": "CA", "250": "CA", "257": "CA", "263": "CA", "289": "CA",
        "306": "CA", "343": "CA", "354": "CA", "365": "CA", "367": "CA", "368": "CA", "382": "CA", "387": "CA",
        "403": "CA", "416": "CA", "418": "CA", "428": "CA", "431": "CA", "437": "CA", "438": "CA", "450": "CA",
        "460": "CA", "468": "CA", "474": "CA", "506": "CA", "514": "CA", "519": "CA", "548": "CA", "579": "CA",
        "581": "CA", "584": "CA", "587": "CA", "604": "CA", "613": "CA", "639": "CA", "647": "CA", "672": "CA",
        "683": "CA", "709": "CA", "742": "CA", "753": "CA", "778": "CA", "780": "CA", "782": "CA", "807": "CA",
        "819": "CA", "825": "CA", "867": "CA", "873": "CA", "879": "CA", "902": "CA", "905": "CA", "942": "CA",
        "242": "BS", "246": "BB", "264": "AI", "268": "AG", "284": "VG", "340": "VI", "345": "KY", "441": "BM",
        "473": "GD", "649": "TC", "658": "JM", "876": "JM", "664": "MS", "670": "MP", "671": "GU", "684": "AS",
        "721": "SX", "758": "LC", "767": "DM", "784": "VC", "787": "PR", "939": "PR", "809": "DO", "829": "DO",
        "849": "DO", "868": "TT", "869": "KN",
    ]

    /// Every region some number maps to (what `smsRegionConfig` may name).
    public static let regions: Set<String> = Set(byCode.values).union(northAmerica.values).union(["US", "RU", "KZ"])

    /// The number's country calling code and the six digits after it (`+1650555`): the block a
    /// carrier assigns together, which SMS pumping works through. `nil` for an invalid number.
    public static func prefix(of number: String) -> String? {
        guard PhoneNumber.isValid(number) else { return nil }
        let digits = number.dropFirst()
        var codeLength = 1
        if let first = digits.first, first != "1", first != "7" {
            codeLength = (1...3).first { digits.count > $0 && byCode[String(digits.prefix($0))] != nil } ?? 3
        }
        return "+" + digits.prefix(codeLength + 6)
    }

    /// The region of an E.164 number, or `nil` when no calling code matches.
    public static func region(of number: String) -> String? {
        guard PhoneNumber.isValid(number) else { return nil }
        let digits = Array(number.dropFirst())
        switch digits.first {
        case "1":
            guard digits.count >= 4 else { return nil }
            return northAmerica[String(digits[1...3])] ?? "US"
        case "7":
            guard digits.count >= 2 else { return nil }
            return digits[1] == "6" || digits[1] == "7" ? "KZ" : "RU"
        default:
            for length in 1...3 where digits.count > length {
                if let region = byCode[String(digits[0..<length])] { return region }
            }
            return nil
        }
    }
}
