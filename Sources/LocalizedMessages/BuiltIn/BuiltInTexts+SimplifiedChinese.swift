extension BuiltInTexts {
    /// Simplified Chinese. SMS in UCS-2 (its length: deploy/configuration.md, "Messages and languages").
    static let simplifiedChinese = LocaleTexts(
        locale: "zh-Hans",
        sms: "您的 {{appName}} 验证码为：{{code}}，{{expiry}}内有效。请勿将验证码告诉他人。",
        minutes: Plural(one: "1 分钟", other: "{{count}} 分钟"),
        phoneFactor: "尾号为 {{phoneEnding}} 的电话号码",
        authenticatorFactor: "身份验证器应用",
        passkeyFactor: "通行密钥",
        emails: [
            .verifyEmail: EmailText(
                subject: "验证您的 {{appName}} 电子邮件地址",
                body: """
                    您好：

                    请点击以下链接，验证您的电子邮件地址。

                    {{link}}

                    如果您并未请求验证此地址，可以忽略此邮件。

                    谢谢！

                    {{appName}} 团队
                    """
            ),
            .passwordReset: EmailText(
                subject: "重置您的 {{appName}} 密码",
                body: """
                    您好：

                    请点击以下链接，重置您 {{email}} 账号的 {{appName}} 密码。

                    {{link}}

                    如果您并未请求重置密码，可以忽略此邮件。

                    谢谢！

                    {{appName}} 团队
                    """
            ),
            .emailSignIn: EmailText(
                subject: "登录 {{appName}}",
                body: """
                    您好：

                    我们收到了使用此电子邮件地址登录 {{appName}} 的请求。如果您想使用 {{email}} 账号登录，请点击以下链接：

                    {{link}}

                    如果您并未请求此链接，可以放心忽略此邮件。

                    谢谢！

                    {{appName}} 团队
                    """
            ),
            .verifyAndChangeEmail: EmailText(
                subject: "验证您的 {{appName}} 新电子邮件地址",
                body: """
                    您好：

                    请点击以下链接，将 {{newEmail}} 验证为您 {{appName}} 账号的新登录电子邮件地址。

                    {{link}}

                    如果您并未请求更改电子邮件地址，可以忽略此邮件。

                    谢谢！

                    {{appName}} 团队
                    """
            ),
            .recoverEmail: EmailText(
                subject: "您的 {{appName}} 登录电子邮件地址已更改",
                body: """
                    您好：

                    您的 {{appName}} 登录电子邮件地址已更改为 {{newEmail}}。

                    如果您并未请求更改电子邮件地址，请点击以下链接，恢复您的登录电子邮件地址。

                    {{link}}

                    谢谢！

                    {{appName}} 团队
                    """
            ),
            .revertSecondFactorAddition: EmailText(
                subject: "您已为 {{appName}} 账号添加两步验证",
                body: """
                    您好：

                    您的 {{appName}} 账号已添加{{secondFactor}}作为两步验证方式。

                    如果您并未添加此两步验证方式，请点击以下链接将其移除。

                    {{link}}

                    谢谢！

                    {{appName}} 团队
                    """
            ),
            .revertPhoneNumberAddition: EmailText(
                subject: "现在可以使用电话号码登录您的 {{appName}} 帐号",
                body: """
                    您好：

                    您的 {{appName}} 帐号已添加{{phoneNumber}}，可用于登录。

                    如果这不是您添加的，请点击以下链接将其移除并退出所有会话。

                    {{link}}

                    谢谢！

                    {{appName}} 团队
                    """
            ),
            .recoveryCodeUsed: EmailText(
                subject: "有人使用恢复代码登录了您的 {{appName}} 帐号",
                body: """
                    您好：

                    刚刚有人使用恢复代码代替您的第二重验证登录了您的 {{appName}} 帐号（{{email}}）。每个代码只能使用一次。

                    如果这不是您本人，说明有人知道您的密码和一个恢复代码：请点击以下链接重置密码，然后登录并生成新的恢复代码。

                    {{link}}

                    谢谢！

                    {{appName}} 团队
                    """
            ),
        ]
    )
}
