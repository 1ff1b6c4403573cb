extension BuiltInTexts {
    /// European Portuguese. SMS in GSM-7 (its length: deploy/configuration.md, "Messages and languages").
    static let europeanPortuguese = LocaleTexts(
        locale: "pt-PT",
        sms: "{{code}} é o seu PIN para {{appName}}. Expira em {{expiry}}. Nunca partilhe este PIN com ninguém.",
        minutes: Plural(one: "1 minuto", other: "{{count}} minutos"),
        phoneFactor: "o número de telefone terminado em {{phoneEnding}}",
        authenticatorFactor: "uma aplicação de autenticação",
        passkeyFactor: "uma chave de acesso",
        emails: [
            .verifyEmail: EmailText(
                subject: "Verifique o seu email para {{appName}}",
                body: """
                    Olá,

                    Utilize esta ligação para verificar o seu endereço de email.

                    {{link}}

                    Se não pediu para verificar este endereço, pode ignorar este email.

                    Obrigado,

                    A equipa {{appName}}
                    """
            ),
            .passwordReset: EmailText(
                subject: "Reponha a sua palavra-passe de {{appName}}",
                body: """
                    Olá,

                    Utilize esta ligação para repor a palavra-passe da sua conta {{appName}} associada ao email {{email}}.

                    {{link}}

                    Se não pediu para repor a sua palavra-passe, pode ignorar este email.

                    Obrigado,

                    A equipa {{appName}}
                    """
            ),
            .emailSignIn: EmailText(
                subject: "Inicie sessão em {{appName}}",
                body: """
                    Olá,

                    Recebemos um pedido para iniciar sessão em {{appName}} com este endereço de email. \
                    Se pretende iniciar sessão com a conta {{email}}, utilize esta ligação:

                    {{link}}

                    Se não pediu esta ligação, pode ignorar este email em segurança.

                    Obrigado,

                    A equipa {{appName}}
                    """
            ),
            .verifyAndChangeEmail: EmailText(
                subject: "Verifique o seu novo email para {{appName}}",
                body: """
                    Olá,

                    Utilize esta ligação para verificar {{newEmail}} como o novo email de início de sessão \
                    da sua conta {{appName}}.

                    {{link}}

                    Se não pediu para alterar o seu email, pode ignorar esta mensagem.

                    Obrigado,

                    A equipa {{appName}}
                    """
            ),
            .recoverEmail: EmailText(
                subject: "O email de início de sessão da sua conta {{appName}} foi alterado",
                body: """
                    Olá,

                    O email de início de sessão da sua conta {{appName}} foi alterado para {{newEmail}}.

                    Se não pediu esta alteração, utilize esta ligação para repor o seu email de início de sessão.

                    {{link}}

                    Obrigado,

                    A equipa {{appName}}
                    """
            ),
            .revertSecondFactorAddition: EmailText(
                subject: "Adicionou a verificação em dois passos à sua conta {{appName}}",
                body: """
                    Olá,

                    A sua conta {{appName}} foi atualizada com {{secondFactor}} para a verificação em dois passos.

                    Se não adicionou esta verificação em dois passos, utilize esta ligação para a remover.

                    {{link}}

                    Obrigado,

                    A equipa {{appName}}
                    """
            ),
            .revertPhoneNumberAddition: EmailText(
                subject: "Já é possível iniciar sessão na sua conta do {{appName}} com um número de telefone",
                body: """
                    Olá,

                    A sua conta do {{appName}} foi atualizada com {{phoneNumber}} como forma de iniciar sessão.

                    Se não foi o utilizador a adicioná-lo, siga este link para o remover e terminar todas as sessões.

                    {{link}}

                    Obrigado,

                    A equipa do {{appName}}
                    """
            ),
            .recoveryCodeUsed: EmailText(
                subject: "Foi usado um código de recuperação para iniciar sessão na sua conta do {{appName}}",
                body: """
                    Olá,

                    Foi agora usado um código de recuperação em vez do seu segundo fator para iniciar sessão na sua conta do {{appName}}, {{email}}. Cada código só funciona uma vez.

                    Se não foi o utilizador, alguém conhece a sua palavra-passe e um dos seus códigos de recuperação: siga este link para repor a palavra-passe e, depois, inicie sessão e gere novos códigos de recuperação.

                    {{link}}

                    Obrigado,

                    A equipa do {{appName}}
                    """
            ),
        ]
    )
}
