extension BuiltInTexts {
    /// Traditional Chinese (Taiwan). SMS in UCS-2 (its length: deploy/configuration.md, "Messages and languages").
    static let traditionalChinese = LocaleTexts(
        locale: "zh-Hant",
        sms: "您的 {{appName}} 驗證碼為：{{code}}，{{expiry}}內有效。請勿將驗證碼提供給他人。",
        minutes: Plural(one: "1 分鐘", other: "{{count}} 分鐘"),
        phoneFactor: "末四碼為 {{phoneEnding}} 的電話號碼",
        authenticatorFactor: "驗證器應用程式",
        passkeyFactor: "密碼金鑰",
        emails: [
            .verifyEmail: EmailText(
                subject: "驗證您的 {{appName}} 電子郵件地址",
                body: """
                    您好：

                    請點選以下連結，驗證您的電子郵件地址。

                    {{link}}

                    如果您並未要求驗證這個地址，可以忽略這封郵件。

                    謝謝！

                    {{appName}} 團隊
                    """
            ),
            .passwordReset: EmailText(
                subject: "重設您的 {{appName}} 密碼",
                body: """
                    您好：

                    請點選以下連結，重設您 {{email}} 帳戶的 {{appName}} 密碼。

                    {{link}}

                    如果您並未要求重設密碼，可以忽略這封郵件。

                    謝謝！

                    {{appName}} 團隊
                    """
            ),
            .emailSignIn: EmailText(
                subject: "登入 {{appName}}",
                body: """
                    您好：

                    我們收到了使用這個電子郵件地址登入 {{appName}} 的要求。如果您想使用 {{email}} 帳戶登入，請點選以下連結：

                    {{link}}

                    如果您並未要求這個連結，可以放心忽略這封郵件。

                    謝謝！

                    {{appName}} 團隊
                    """
            ),
            .verifyAndChangeEmail: EmailText(
                subject: "驗證您的 {{appName}} 新電子郵件地址",
                body: """
                    您好：

                    請點選以下連結，將 {{newEmail}} 驗證為您 {{appName}} 帳戶的新登入電子郵件地址。

                    {{link}}

                    如果您並未要求變更電子郵件地址，可以忽略這封郵件。

                    謝謝！

                    {{appName}} 團隊
                    """
            ),
            .recoverEmail: EmailText(
                subject: "您的 {{appName}} 登入電子郵件地址已變更",
                body: """
                    您好：

                    您的 {{appName}} 登入電子郵件地址已變更為 {{newEmail}}。

                    如果您並未要求變更電子郵件地址，請點選以下連結，還原您的登入電子郵件地址。

                    {{link}}

                    謝謝！

                    {{appName}} 團隊
                    """
            ),
            .revertSecondFactorAddition: EmailText(
                subject: "您已為 {{appName}} 帳戶新增兩步驟驗證",
                body: """
                    您好：

                    您的 {{appName}} 帳戶已新增{{secondFactor}}作為兩步驟驗證方式。

                    如果您並未新增這項兩步驟驗證，請點選以下連結將其移除。

                    {{link}}

                    謝謝！

                    {{appName}} 團隊
                    """
            ),
            .revertPhoneNumberAddition: EmailText(
                subject: "現在可以使用電話號碼登入您的 {{appName}} 帳戶",
                body: """
                    您好：

                    您的 {{appName}} 帳戶已新增{{phoneNumber}}，可用於登入。

                    如果這不是您新增的，請點選以下連結將其移除並登出所有工作階段。

                    {{link}}

                    謝謝！

                    {{appName}} 團隊
                    """
            ),
            .recoveryCodeUsed: EmailText(
                subject: "有人使用復原碼登入了您的 {{appName}} 帳戶",
                body: """
                    您好：

                    剛剛有人使用復原碼代替您的第二重驗證登入了您的 {{appName}} 帳戶（{{email}}）。每個復原碼只能使用一次。

                    如果這不是您本人，表示有人知道您的密碼和一組復原碼：請點選以下連結重設密碼，然後登入並產生新的復原碼。

                    {{link}}

                    謝謝！

                    {{appName}} 團隊
                    """
            ),
        ]
    )
}
