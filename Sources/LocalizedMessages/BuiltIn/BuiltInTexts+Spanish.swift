extension BuiltInTexts {
    /// Spanish (Spain). SMS in GSM-7 (its length: deploy/configuration.md, "Messages and languages").
    static let spanish = LocaleTexts(
        locale: "es",
        sms: "{{code}} es tu clave de seguridad para {{appName}}. Caduca en {{expiry}}. No la compartas con nadie.",
        minutes: Plural(one: "1 minuto", other: "{{count}} minutos"),
        phoneFactor: "el número de teléfono que termina en {{phoneEnding}}",
        authenticatorFactor: "una aplicación de autenticación",
        passkeyFactor: "una llave de acceso",
        emails: [
            .verifyEmail: EmailText(
                subject: "Verifica tu correo electrónico para {{appName}}",
                body: """
                    Hola:

                    Sigue este enlace para verificar tu dirección de correo electrónico.

                    {{link}}

                    Si no has solicitado verificar esta dirección, puedes ignorar este correo.

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

                    Si no has solicitado restablecer tu contraseña, puedes ignorar este correo.

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .emailSignIn: EmailText(
                subject: "Inicia sesión en {{appName}}",
                body: """
                    Hola:

                    Hemos recibido una solicitud para iniciar sesión en {{appName}} con esta dirección de correo electrónico. \
                    Si quieres iniciar sesión con tu cuenta {{email}}, sigue este enlace:

                    {{link}}

                    Si no has solicitado este enlace, puedes ignorar este correo sin problema.

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

                    Si no has solicitado cambiar tu correo electrónico, puedes ignorar este correo.

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .recoverEmail: EmailText(
                subject: "Se ha cambiado tu correo electrónico de inicio de sesión de {{appName}}",
                body: """
                    Hola:

                    Tu correo electrónico de inicio de sesión de {{appName}} se ha cambiado a {{newEmail}}.

                    Si no has solicitado este cambio, sigue este enlace para restablecer tu correo electrónico de inicio de sesión.

                    {{link}}

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .revertSecondFactorAddition: EmailText(
                subject: "Has añadido la verificación en dos pasos a tu cuenta de {{appName}}",
                body: """
                    Hola:

                    Tu cuenta de {{appName}} se ha actualizado con {{secondFactor}} para la verificación en dos pasos.

                    Si no has añadido esta verificación en dos pasos, sigue este enlace para quitarla.

                    {{link}}

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .revertPhoneNumberAddition: EmailText(
                subject: "Ahora se puede iniciar sesión en tu cuenta de {{appName}} con un número de teléfono",
                body: """
                    Hola:

                    Tu cuenta de {{appName}} se ha actualizado con {{phoneNumber}} como forma de iniciar sesión.

                    Si no lo has añadido tú, sigue este enlace para quitarlo y cerrar todas las sesiones.

                    {{link}}

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
            .recoveryCodeUsed: EmailText(
                subject: "Se ha usado un código de recuperación para iniciar sesión en tu cuenta de {{appName}}",
                body: """
                    Hola:

                    Se acaba de usar un código de recuperación en lugar de tu segundo factor para iniciar sesión en tu cuenta de {{appName}}, {{email}}. Cada código solo funciona una vez.

                    Si no has sido tú, alguien conoce tu contraseña y uno de tus códigos de recuperación: sigue este enlace para restablecer la contraseña y, después, inicia sesión y genera códigos de recuperación nuevos.

                    {{link}}

                    Gracias,

                    El equipo de {{appName}}
                    """
            ),
        ]
    )
}
