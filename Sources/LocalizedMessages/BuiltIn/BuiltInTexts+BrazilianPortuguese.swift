extension BuiltInTexts {
    /// Brazilian Portuguese. SMS in GSM-7 (its length: deploy/configuration.md, "Messages and languages").
    static let brazilianPortuguese = LocaleTexts(
        locale: "pt-BR",
        sms: "{{code}} é seu PIN para {{appName}}. Expira em {{expiry}}. Nunca compartilhe este PIN com ninguém.",
        minutes: Plural(one: "1 minuto", other: "{{count}} minutos"),
        phoneFactor: "o número de telefone terminado em {{phoneEnding}}",
        authenticatorFactor: "um aplicativo autenticador",
        passkeyFactor: "uma chave de acesso",
        emails: [
            .verifyEmail: EmailText(
                subject: "Verifique seu e-mail para {{appName}}",
                body: """
                    Olá,

                    Acesse este link para verificar seu endereço de e-mail.

                    {{link}}

                    Se você não pediu para verificar este endereço, ignore este e-mail.

                    Obrigado,

                    Equipe {{appName}}
                    """
            ),
            .passwordReset: EmailText(
                subject: "Redefina sua senha para {{appName}}",
                body: """
                    Olá,

                    Acesse este link para redefinir a senha da sua conta {{appName}} vinculada ao e-mail {{email}}.

                    {{link}}

                    Se você não pediu para redefinir sua senha, ignore este e-mail.

                    Obrigado,

                    Equipe {{appName}}
                    """
            ),
            .emailSignIn: EmailText(
                subject: "Faça login em {{appName}}",
                body: """
                    Olá,

                    Recebemos uma solicitação para fazer login em {{appName}} com este endereço de e-mail. \
                    Se você quer fazer login com a conta {{email}}, acesse este link:

                    {{link}}

                    Se você não solicitou este link, pode ignorar este e-mail com segurança.

                    Obrigado,

                    Equipe {{appName}}
                    """
            ),
            .verifyAndChangeEmail: EmailText(
                subject: "Verifique seu novo e-mail para {{appName}}",
                body: """
                    Olá,

                    Acesse este link para verificar {{newEmail}} como o novo e-mail de login da sua conta {{appName}}.

                    {{link}}

                    Se você não pediu para alterar seu e-mail, ignore esta mensagem.

                    Obrigado,

                    Equipe {{appName}}
                    """
            ),
            .recoverEmail: EmailText(
                subject: "O e-mail de login da sua conta {{appName}} foi alterado",
                body: """
                    Olá,

                    O e-mail de login da sua conta {{appName}} foi alterado para {{newEmail}}.

                    Se você não pediu essa alteração, acesse este link para restaurar seu e-mail de login.

                    {{link}}

                    Obrigado,

                    Equipe {{appName}}
                    """
            ),
            .revertSecondFactorAddition: EmailText(
                subject: "Você adicionou a verificação em duas etapas à sua conta {{appName}}",
                body: """
                    Olá,

                    Sua conta {{appName}} foi atualizada com {{secondFactor}} para a verificação em duas etapas.

                    Se você não adicionou essa verificação em duas etapas, acesse este link para removê-la.

                    {{link}}

                    Obrigado,

                    Equipe {{appName}}
                    """
            ),
            .revertPhoneNumberAddition: EmailText(
                subject: "Agora é possível fazer login na sua conta do {{appName}} com um número de telefone",
                body: """
                    Olá,

                    Sua conta do {{appName}} foi atualizada com {{phoneNumber}} como forma de fazer login.

                    Se não foi você que o adicionou, acesse este link para removê-lo e sair de todas as sessões.

                    {{link}}

                    Obrigado,

                    Equipe do {{appName}}
                    """
            ),
            .recoveryCodeUsed: EmailText(
                subject: "Um código de recuperação foi usado para fazer login na sua conta do {{appName}}",
                body: """
                    Olá,

                    Um código de recuperação acabou de ser usado no lugar do seu segundo fator para fazer login na sua conta do {{appName}}, {{email}}. Cada código funciona só uma vez.

                    Se não foi você, alguém conhece sua senha e um dos seus códigos de recuperação: acesse este link para redefinir sua senha e depois faça login e gere novos códigos de recuperação.

                    {{link}}

                    Obrigado,

                    Equipe do {{appName}}
                    """
            ),
        ]
    )
}
