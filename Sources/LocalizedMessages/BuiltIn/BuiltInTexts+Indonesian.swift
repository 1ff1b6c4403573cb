extension BuiltInTexts {
    /// Indonesian. SMS in GSM-7 (its length: deploy/configuration.md, "Messages and languages").
    static let indonesian = LocaleTexts(
        locale: "id",
        sms: "{{code}} adalah kode verifikasi {{appName}} Anda. Berlaku selama {{expiry}}. Jangan bagikan kode ini kepada siapa pun.",
        minutes: Plural(one: "1 menit", other: "{{count}} menit"),
        phoneFactor: "nomor telepon yang berakhiran {{phoneEnding}}",
        authenticatorFactor: "aplikasi autentikator",
        passkeyFactor: "kunci sandi",
        emails: [
            .verifyEmail: EmailText(
                subject: "Verifikasi email Anda untuk {{appName}}",
                body: """
                    Halo,

                    Ikuti tautan ini untuk memverifikasi alamat email Anda.

                    {{link}}

                    Jika Anda tidak meminta verifikasi alamat ini, abaikan saja email ini.

                    Terima kasih,

                    Tim {{appName}}
                    """
            ),
            .passwordReset: EmailText(
                subject: "Atur ulang kata sandi {{appName}} Anda",
                body: """
                    Halo,

                    Ikuti tautan ini untuk mengatur ulang kata sandi {{appName}} untuk akun {{email}} Anda.

                    {{link}}

                    Jika Anda tidak meminta pengaturan ulang kata sandi, abaikan saja email ini.

                    Terima kasih,

                    Tim {{appName}}
                    """
            ),
            .emailSignIn: EmailText(
                subject: "Masuk ke {{appName}}",
                body: """
                    Halo,

                    Kami menerima permintaan untuk masuk ke {{appName}} menggunakan alamat email ini. \
                    Jika Anda ingin masuk dengan akun {{email}}, ikuti tautan ini:

                    {{link}}

                    Jika Anda tidak meminta tautan ini, Anda dapat mengabaikan email ini dengan aman.

                    Terima kasih,

                    Tim {{appName}}
                    """
            ),
            .verifyAndChangeEmail: EmailText(
                subject: "Verifikasi email baru Anda untuk {{appName}}",
                body: """
                    Halo,

                    Ikuti tautan ini untuk memverifikasi {{newEmail}} sebagai email masuk yang baru untuk akun {{appName}} Anda.

                    {{link}}

                    Jika Anda tidak meminta perubahan email, abaikan saja email ini.

                    Terima kasih,

                    Tim {{appName}}
                    """
            ),
            .recoverEmail: EmailText(
                subject: "Email masuk Anda untuk {{appName}} telah diubah",
                body: """
                    Halo,

                    Email masuk Anda untuk {{appName}} telah diubah menjadi {{newEmail}}.

                    Jika Anda tidak meminta perubahan ini, ikuti tautan ini untuk memulihkan email masuk Anda.

                    {{link}}

                    Terima kasih,

                    Tim {{appName}}
                    """
            ),
            .revertSecondFactorAddition: EmailText(
                subject: "Anda telah menambahkan verifikasi 2 langkah ke akun {{appName}} Anda",
                body: """
                    Halo,

                    Akun {{appName}} Anda telah diperbarui dengan {{secondFactor}} untuk verifikasi 2 langkah.

                    Jika Anda tidak menambahkan verifikasi 2 langkah ini, ikuti tautan ini untuk menghapusnya.

                    {{link}}

                    Terima kasih,

                    Tim {{appName}}
                    """
            ),
            .revertPhoneNumberAddition: EmailText(
                subject: "Nomor telepon kini dapat digunakan untuk login ke akun {{appName}} Anda",
                body: """
                    Halo,

                    Akun {{appName}} Anda telah diperbarui dengan {{phoneNumber}} sebagai cara untuk login.

                    Jika Anda tidak menambahkannya, ikuti link ini untuk menghapusnya dan keluar dari semua sesi.

                    {{link}}

                    Terima kasih,

                    Tim {{appName}}
                    """
            ),
            .recoveryCodeUsed: EmailText(
                subject: "Kode pemulihan digunakan untuk login ke akun {{appName}} Anda",
                body: """
                    Halo,

                    Kode pemulihan baru saja digunakan sebagai pengganti faktor kedua Anda untuk login ke akun {{appName}} Anda, {{email}}. Setiap kode hanya berlaku satu kali.

                    Jika ini bukan Anda, seseorang mengetahui sandi Anda dan salah satu kode pemulihan Anda: ikuti link ini untuk mereset sandi, lalu login dan buat kode pemulihan baru.

                    {{link}}

                    Terima kasih,

                    Tim {{appName}}
                    """
            ),
        ]
    )
}
