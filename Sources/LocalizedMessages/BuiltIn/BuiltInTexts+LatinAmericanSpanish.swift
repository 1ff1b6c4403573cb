extension BuiltInTexts {
    /// Latin American Spanish. SMS in GSM-7 (its length: deploy/configuration.md, "Messages and languages").
    static let latinAmericanSpanish = LocaleTexts(
        locale: "es-419",
        sms: "{{code}} es tu clave de seguridad para {{appName}}. Vence en {{expiry}}. No la compartas con nadie.",
        minutes: Plural(one: "1 minuto", other: "{{count}} minutos"),
        phoneFactor: "el número de teléfono que termina en {{phoneEnding}}",
        authenticatorFactor: "una app de autenticación",
        passkeyFactor: "una llave de acceso",
        emails: [
            .verifyEmail: EmailText(
                subject: "Verifica tu correo electrónico para {{appName}}",
                body: """
                    Hola:

                    Sigue este enlace para verificar tu dirección de correo electrónico.

                    {{link}}

                    Si no solicitaste verificar esta dirección, puedes ignorar este correo.

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .passwordReset: EmailText(
                subject: "Restablece tu contraseña de {{appName}}",
                body: """
                    Hola:

                    Sigue este enlace para restablecer la contraseña de tu cuenta de {{appName}} asociada a {{email}}.

                    {{link}}

                    Si no solicitaste restablecer tu contraseña, puedes ignorar este correo.

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .emailSignIn: EmailText(
                subject: "Inicia sesión en {{appName}}",
                body: """
                    Hola:

                    Recibimos una solicitud para iniciar sesión en {{appName}} con esta dirección de correo electrónico. \
                    Si quieres iniciar sesión con tu cuenta {{email}}, sigue este enlace:

                    {{link}}

                    Si no solicitaste este enlace, puedes ignorar este correo sin problema.

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .verifyAndChangeEmail: EmailText(
                subject: "Verifica tu nuevo correo electrónico para {{appName}}",
                body: """
                    Hola:

                    Sigue este enlace para verificar {{newEmail}} como el nuevo correo electrónico de inicio de sesión \
                    de tu cuenta de {{appName}}.

                    {{link}}

                    Si no solicitaste cambiar tu correo electrónico, puedes ignorar este correo.

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .recoverEmail: EmailText(
                subject: "Se cambió tu correo electrónico de inicio de sesión de {{appName}}",
                body: """
                    Hola:

                    Tu correo electrónico de inicio de sesión de {{appName}} se cambió a {{newEmail}}.

                    Si no solicitaste este cambio, sigue este enlace para restablecer tu correo electrónico de inicio de sesión.

                    {{link}}

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .revertSecondFactorAddition: EmailText(
                subject: "Agregaste la verificación en dos pasos a tu cuenta de {{appName}}",
                body: """
                    Hola:

                    Tu cuenta de {{appName}} se actualizó con {{secondFactor}} para la verificación en dos pasos.

                    Si no agregaste esta verificación en dos pasos, sigue este enlace para quitarla.

                    {{link}}

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .revertPhoneNumberAddition: EmailText(
                subject: "Ahora puedes iniciar sesión en tu cuenta de {{appName}} con un número de teléfono",
                body: """
                    Hola:

                    Tu cuenta de {{appName}} se actualizó con {{phoneNumber}} como forma de iniciar sesión.

                    Si no lo agregaste tú, sigue este vínculo para quitarlo y cerrar todas las sesiones.

                    {{link}}

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .recoveryCodeUsed: EmailText(
                subject: "Se usó un código de recuperación para iniciar sesión en tu cuenta de {{appName}}",
                body: """
                    Hola:

                    Se acaba de usar un código de recuperación en lugar de tu segundo factor para iniciar sesión en tu cuenta de {{appName}}, {{email}}. Cada código funciona una sola vez.

                    Si no fuiste tú, alguien conoce tu contraseña y uno de tus códigos de recuperación: sigue este vínculo para restablecer tu contraseña y, luego, inicia sesión y genera códigos de recuperación nuevos.

                    {{link}}

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
        ]
    )
}
